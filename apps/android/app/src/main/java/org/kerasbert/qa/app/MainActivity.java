package org.kerasbert.qa.app;

import android.app.Activity;
import android.content.Intent;
import android.os.Bundle;
import android.widget.ArrayAdapter;
import android.widget.ListView;
import android.widget.TextView;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** The passage list: the bundled passages, plus an entry to paste one's own. */
public class MainActivity extends Activity {
    @Override
    protected void onCreate(Bundle savedInstanceState) {
        super.onCreate(savedInstanceState);
        setContentView(R.layout.activity_main);
        ListView list = findViewById(R.id.passage_list);
        TextView intro = findViewById(R.id.intro);

        List<String> titles = new ArrayList<>();
        int bundled = 0;
        try {
            for (Passage passage : PassageRepository.load(this)) {
                titles.add(passage.title);
            }
            bundled = titles.size();
        } catch (IOException e) {
            // The app stays usable with one's own passage.
            intro.setText(getString(R.string.passages_failed, e.getMessage()));
        }
        titles.add(getString(R.string.own_passage));
        final int bundledCount = bundled;

        list.setAdapter(new ArrayAdapter<>(this, android.R.layout.simple_list_item_1, titles));
        list.setOnItemClickListener((parent, view, position, id) -> {
            Intent intent = new Intent(this, QaActivity.class);
            intent.putExtra(QaActivity.EXTRA_PASSAGE_INDEX, position < bundledCount ? position : -1);
            startActivity(intent);
        });
    }
}
