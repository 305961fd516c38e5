package org.kerasbert.qa;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;

/**
 * Finds and loads the shared golden fixtures (apps/fixtures/*.json, made by
 * {@code python -m apps.make_fixtures}) and the vocabulary they name.
 *
 * <p>The fixtures folder is the system property {@code fixtures.dir} if set, else the first
 * {@code apps/fixtures} found walking up from the working directory.
 */
final class Fixtures {
    private static final Map<String, Object> CACHE = new HashMap<>();
    private static final Map<String, BertTokenizer> TOKENIZERS = new HashMap<>();

    private Fixtures() {}

    static Path dir() {
        String property = System.getProperty("fixtures.dir");
        if (property != null && !property.isEmpty()) {
            Path path = Paths.get(property).toAbsolutePath().normalize();
            if (!Files.isDirectory(path)) {
                throw new IllegalStateException("-Dfixtures.dir=" + property + " is not a folder.");
            }
            return path;
        }
        Path here = Paths.get("").toAbsolutePath();
        for (Path p = here; p != null; p = p.getParent()) {
            Path candidate = p.resolve("apps").resolve("fixtures");
            if (Files.isDirectory(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("No apps/fixtures folder above " + here
                + "; pass -Dfixtures.dir=<repo>/apps/fixtures (made by `python -m apps.make_fixtures`).");
    }

    /** The repository root: fixture paths such as "apps/models/vocab.txt" are relative to it. */
    static Path repoRoot() {
        return dir().getParent().getParent();
    }

    static synchronized Map<String, Object> load(String name) {
        Object cached = CACHE.get(name);
        if (cached == null) {
            Path path = dir().resolve(name);
            try {
                cached = MiniJson.parse(new String(Files.readAllBytes(path), StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new IllegalStateException("Cannot read fixture " + path + ": " + e, e);
            }
            CACHE.put(name, cached);
        }
        return MiniJson.obj(cached);
    }

    /** The uncased tokenizer of the vocab.txt at {@code relativePath} (from the repo root). */
    static synchronized BertTokenizer tokenizer(String relativePath) {
        BertTokenizer tokenizer = TOKENIZERS.get(relativePath);
        if (tokenizer == null) {
            File file = repoRoot().resolve(relativePath).toFile();
            try {
                tokenizer = BertTokenizer.fromVocabText(
                        new String(Files.readAllBytes(file.toPath()), StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new IllegalStateException("Cannot read vocabulary " + file + ": " + e, e);
            }
            TOKENIZERS.put(relativePath, tokenizer);
        }
        return tokenizer;
    }

    /** The shipped model's vocabulary (the one the fixtures use). */
    static BertTokenizer shippedTokenizer() {
        return tokenizer(MiniJson.str(load("qa_golden.json").get("vocab")));
    }
}
