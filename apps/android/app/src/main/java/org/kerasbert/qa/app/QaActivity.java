package org.kerasbert.qa.app;

import android.app.Activity;
import android.content.SharedPreferences;
import android.graphics.Typeface;
import android.os.Bundle;
import android.os.Handler;
import android.os.Looper;
import android.text.Layout;
import android.text.SpannableString;
import android.text.Spanned;
import android.text.style.BackgroundColorSpan;
import android.text.style.StyleSpan;
import android.view.View;
import android.view.inputmethod.EditorInfo;
import android.widget.AdapterView;
import android.widget.ArrayAdapter;
import android.widget.Button;
import android.widget.EditText;
import android.widget.LinearLayout;
import android.widget.ScrollView;
import android.widget.Spinner;
import android.widget.TextView;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.kerasbert.qa.Answer;
import org.kerasbert.qa.DocumentAnswer;
import org.kerasbert.qa.QaInputException;

/**
 * The QA screen: the passage (best answer highlighted at its true position), suggested
 * questions, a question box and Ask, the other candidates with their scores, the inference time,
 * and a thread-count setting. A whole article (assets/articles.json) is asked through
 * retrieve-then-read ({@link QaClient#answerDocument}): the answer is highlighted in the whole
 * document, or the screen says there is no answer in this document. The model runs on a single
 * background thread; the UI thread only shows results, so nothing blocks it.
 */
public class QaActivity extends Activity {
    public static final String EXTRA_PASSAGE_INDEX = "passage_index";
    private static final String PREFS = "qa";
    private static final String PREF_THREADS = "threads";
    private static final Integer[] THREAD_CHOICES = {1, 2, 4};
    private static final int HIGHLIGHT_COLOR = 0xFFFFE082;

    private final ExecutorService executor = Executors.newSingleThreadExecutor();
    private final Handler main = new Handler(Looper.getMainLooper());

    // Touched on the executor thread only.
    private QaClient client;
    // Written on the executor, read on the UI thread.
    private volatile boolean loading;
    private volatile String loadError;

    private Passage passage; // null: the user's own passage
    private ScrollView scroll;
    private EditText passageEdit;
    private TextView passageView;
    private EditText questionEdit;
    private Button askButton;
    private TextView statusView;
    private TextView answerView;
    private TextView candidatesView;
    private TextView timingView;
    private int threads;

    @Override
    protected void onCreate(Bundle savedInstanceState) {
        super.onCreate(savedInstanceState);
        setContentView(R.layout.activity_qa);
        scroll = findViewById(R.id.scroll);
        passageEdit = findViewById(R.id.passage_edit);
        passageView = findViewById(R.id.passage);
        questionEdit = findViewById(R.id.question);
        askButton = findViewById(R.id.ask);
        statusView = findViewById(R.id.status);
        answerView = findViewById(R.id.answer);
        candidatesView = findViewById(R.id.candidates);
        timingView = findViewById(R.id.timing);
        TextView titleView = findViewById(R.id.title);

        int index = getIntent().getIntExtra(EXTRA_PASSAGE_INDEX, -1);
        try {
            List<Passage> passages = PassageRepository.load(this);
            if (index >= 0 && index < passages.size()) {
                passage = passages.get(index);
            }
        } catch (IOException e) {
            passage = null;
        }
        if (passage != null) {
            titleView.setText(passage.title);
            setTitle(passage.title);
            passageView.setText(passage.context);
            addSuggestions(passage.questions);
        } else {
            titleView.setText(R.string.own_passage);
            passageEdit.setVisibility(View.VISIBLE);
            findViewById(R.id.suggestions_label).setVisibility(View.GONE);
        }

        askButton.setOnClickListener(v -> ask());
        questionEdit.setOnEditorActionListener((v, actionId, event) -> {
            if (actionId == EditorInfo.IME_ACTION_SEND) {
                ask();
                return true;
            }
            return false;
        });
        setUpThreads();
    }

    private void addSuggestions(List<String> questions) {
        LinearLayout container = findViewById(R.id.suggestions);
        for (String question : questions) {
            Button button = new Button(this);
            button.setAllCaps(false);
            button.setText(question);
            button.setOnClickListener(v -> {
                questionEdit.setText(question);
                ask();
            });
            container.addView(button, new LinearLayout.LayoutParams(
                    LinearLayout.LayoutParams.MATCH_PARENT, LinearLayout.LayoutParams.WRAP_CONTENT));
        }
    }

    private void setUpThreads() {
        SharedPreferences prefs = getSharedPreferences(PREFS, MODE_PRIVATE);
        threads = prefs.getInt(PREF_THREADS, 2);
        Spinner spinner = findViewById(R.id.threads);
        ArrayAdapter<Integer> adapter = new ArrayAdapter<>(this,
                android.R.layout.simple_spinner_item, THREAD_CHOICES);
        adapter.setDropDownViewResource(android.R.layout.simple_spinner_dropdown_item);
        spinner.setAdapter(adapter);
        int selected = 0;
        for (int i = 0; i < THREAD_CHOICES.length; i++) {
            if (THREAD_CHOICES[i] == threads) {
                selected = i;
            }
        }
        spinner.setSelection(selected, false);
        spinner.setOnItemSelectedListener(new AdapterView.OnItemSelectedListener() {
            @Override
            public void onItemSelected(AdapterView<?> parent, View view, int position, long id) {
                int chosen = THREAD_CHOICES[position];
                if (chosen != threads) {
                    threads = chosen;
                    prefs.edit().putInt(PREF_THREADS, chosen).apply();
                    loadModel(chosen);
                }
            }

            @Override
            public void onNothingSelected(AdapterView<?> parent) {}
        });
        loadModel(threads);
    }

    /** (Re)creates the interpreter with {@code numThreads} threads, off the UI thread. */
    private void loadModel(int numThreads) {
        loading = true;
        loadError = null;
        statusView.setText(R.string.loading_model);
        executor.execute(() -> {
            if (client != null) {
                client.close();
                client = null;
            }
            String error = null;
            try {
                client = QaClient.create(getApplicationContext(), numThreads);
            } catch (ModelLoadException e) {
                error = e.getMessage();
            }
            final String failure = error;
            loadError = failure;
            loading = false;
            post(() -> statusView.setText(failure == null
                    ? getString(R.string.model_ready, numThreads)
                    : getString(R.string.model_failed, failure)));
        });
    }

    private String currentPassage() {
        return passage != null ? passage.context : passageEdit.getText().toString();
    }

    private void ask() {
        String question = questionEdit.getText().toString();
        String context = currentPassage();
        clearAnswer();
        if (question.trim().isEmpty()) {
            statusView.setText(R.string.empty_question);
            return;
        }
        if (context.trim().isEmpty()) {
            statusView.setText(R.string.empty_passage);
            return;
        }
        if (loading) {
            statusView.setText(R.string.model_still_loading);
            return;
        }
        if (loadError != null) {
            statusView.setText(getString(R.string.model_failed, loadError));
            return;
        }
        askButton.setEnabled(false);
        statusView.setText(R.string.answering);
        final int usedThreads = threads;
        executor.execute(() -> {
            try {
                if (client == null) {
                    throw new IllegalStateException(loadError != null ? loadError : "no model");
                }
                if (passage != null && passage.wholeDocument) {
                    QaClient.DocumentResult result = client.answerDocument(question, context);
                    post(() -> showDocumentResult(context, result, usedThreads));
                } else {
                    QaClient.Result result = client.answer(question, context);
                    post(() -> showResult(context, result, usedThreads));
                }
            } catch (QaInputException e) {
                post(() -> showMessage(e.getMessage()));
            } catch (RuntimeException e) {
                post(() -> showMessage(getString(R.string.inference_failed, String.valueOf(e.getMessage()))));
            }
        });
    }

    private void clearAnswer() {
        answerView.setText("");
        candidatesView.setText("");
        timingView.setText("");
        if (passage != null) {
            passageView.setText(passage.context);
        }
    }

    private void showMessage(String message) {
        askButton.setEnabled(true);
        statusView.setText(message);
    }

    private void showResult(String context, QaClient.Result result, int usedThreads) {
        askButton.setEnabled(true);
        timingView.setText(getString(R.string.timing, result.inferenceMillis, result.windows,
                usedThreads, result.totalMillis));
        if (result.answers.isEmpty()) {
            statusView.setText(R.string.no_answer);
            passageView.setText(context);
            return;
        }
        statusView.setText(result.questionTruncated ? getString(R.string.question_truncated) : "");
        Answer best = result.answers.get(0);
        answerView.setText(getString(R.string.answer, best.text(), best.probability()));

        StringBuilder others = new StringBuilder();
        if (result.answers.size() > 1) {
            others.append(getString(R.string.other_candidates));
            for (int i = 1; i < result.answers.size(); i++) {
                Answer a = result.answers.get(i);
                others.append('\n').append(getString(R.string.candidate_line, i + 1, a.text(),
                        a.score(), a.probability()));
            }
        }
        candidatesView.setText(others);

        highlight(context, best.start(), best.end());
    }

    private void showDocumentResult(String document, QaClient.DocumentResult result,
            int usedThreads) {
        askButton.setEnabled(true);
        timingView.setText(getString(R.string.document_timing, result.inferenceMillis,
                result.passagesRead, result.passages, usedThreads, result.totalMillis));
        DocumentAnswer answer = result.answer;
        if (answer.noAnswer()) {
            statusView.setText(R.string.no_answer_in_document);
            DocumentAnswer rejected = answer.candidate();
            if (rejected != null) {
                candidatesView.setText(getString(R.string.rejected_candidate, rejected.text(),
                        rejected.score()));
            }
            passageView.setText(document);
            return;
        }
        statusView.setText(result.calibrated ? "" : getString(R.string.uncalibrated));
        answerView.setText(getString(R.string.answer, answer.text(), answer.score()));
        candidatesView.setText(getString(R.string.answer_passage, answer.passage() + 1,
                result.passages));
        highlight(document, answer.start(), answer.end());
    }

    /** Shows {@code context} with {@code [start, end)} (UTF-16 offsets) highlighted. */
    private void highlight(String context, int answerStart, int answerEnd) {
        int start = Math.max(0, Math.min(answerStart, context.length()));
        int end = Math.max(start, Math.min(answerEnd, context.length()));
        SpannableString highlighted = new SpannableString(context);
        highlighted.setSpan(new BackgroundColorSpan(HIGHLIGHT_COLOR), start, end,
                Spanned.SPAN_EXCLUSIVE_EXCLUSIVE);
        highlighted.setSpan(new StyleSpan(Typeface.BOLD), start, end,
                Spanned.SPAN_EXCLUSIVE_EXCLUSIVE);
        passageView.setText(highlighted);
        scrollTo(start);
    }

    private void scrollTo(int offset) {
        passageView.post(() -> {
            Layout layout = passageView.getLayout();
            if (layout == null) {
                return;
            }
            int y = passageView.getTop() + layout.getLineTop(layout.getLineForOffset(offset));
            scroll.smoothScrollTo(0, Math.max(0, y - passageView.getLineHeight()));
        });
    }

    private void post(Runnable action) {
        main.post(() -> {
            if (!isFinishing() && !isDestroyed()) {
                action.run();
            }
        });
    }

    @Override
    protected void onDestroy() {
        executor.execute(() -> {
            if (client != null) {
                client.close();
                client = null;
            }
        });
        executor.shutdown();
        super.onDestroy();
    }
}
