package org.kerasbert.qa.app;

import android.content.Context;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * The bundled passages: assets/passages.json ([{"id", "title", "context", "questions": [...]}]),
 * copied at build time from apps/web/data/passages.json (SQuAD v1.1 dev / Wikipedia, CC BY-SA 4.0),
 * then the whole articles of assets/articles.json (apps/web/data/articles.json, same licence;
 * each also has "questions_without_answer", which the list of suggestions appends).
 */
public final class PassageRepository {
    public static final String ASSET = "passages.json";
    public static final String ARTICLES_ASSET = "articles.json";

    private static List<Passage> cached;

    private PassageRepository() {}

    /** The passages, read once; throws IOException with a clear message if the asset is bad. */
    public static synchronized List<Passage> load(Context context) throws IOException {
        if (cached == null) {
            List<Passage> all = new ArrayList<>(parse(readAsset(context, ASSET), ASSET, false));
            all.addAll(parse(readAsset(context, ARTICLES_ASSET), ARTICLES_ASSET, true));
            cached = all;
        }
        return cached;
    }

    static List<Passage> parse(String json) throws IOException {
        return parse(json, ASSET, false);
    }

    static List<Passage> parse(String json, String name, boolean wholeDocuments) throws IOException {
        try {
            JSONArray array = new JSONArray(json);
            List<Passage> passages = new ArrayList<>(array.length());
            for (int i = 0; i < array.length(); i++) {
                JSONObject item = array.getJSONObject(i);
                JSONArray qs = item.optJSONArray("questions");
                List<String> questions = new ArrayList<>();
                if (qs != null) {
                    for (int k = 0; k < qs.length(); k++) {
                        questions.add(qs.getString(k));
                    }
                }
                JSONArray unanswerable = item.optJSONArray("questions_without_answer");
                if (unanswerable != null) {
                    for (int k = 0; k < unanswerable.length(); k++) {
                        questions.add(unanswerable.getString(k));
                    }
                }
                passages.add(new Passage(item.getString("id"), item.getString("title"),
                        item.getString("context"), questions, wholeDocuments));
            }
            return passages;
        } catch (JSONException e) {
            throw new IOException(name + " is not valid passage JSON: " + e.getMessage(), e);
        }
    }

    private static String readAsset(Context context, String name) throws IOException {
        try (InputStream in = context.getAssets().open(name)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            int n;
            while ((n = in.read(buffer)) > 0) {
                out.write(buffer, 0, n);
            }
            return new String(out.toByteArray(), StandardCharsets.UTF_8);
        }
    }
}
