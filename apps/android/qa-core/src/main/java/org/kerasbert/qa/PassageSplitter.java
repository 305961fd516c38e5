package org.kerasbert.qa;

import java.util.ArrayList;
import java.util.List;

/**
 * Cuts a document into overlapping passages made of whole sentences: a port of
 * {@code keras_bert/retrieval/passage_splitter.py} ({@code PassageSplitter}).
 *
 * <p>Sentences ({@link SentenceSplitter}) are packed greedily into a passage while its
 * WordPiece count stays within {@code maxTokens}; the next passage starts on the earliest
 * sentence of the one before such that the shared sentences hold at most
 * {@code overlapTokens} tokens and still leave room for the first sentence the passage before
 * lacked. A sentence longer than {@code maxTokens} on its own is cut into runs of whole words of
 * at most {@code overlapTokens} tokens ({@code maxTokens} when there is no overlap), a word
 * over that by characters (code points, as Python's binary search over str offsets).
 *
 * <p>Token counts are the {@link BertTokenizer}'s (the reader's), each passage's of its own
 * text. Defaults: 254 tokens (the reader reads a passage whole beside a 64-token question in
 * 384, and so does the 256-token embedder), 64 overlapping.
 */
public final class PassageSplitter {
    /** 384 - 64 - 3: the passage tokens of one reader window beside a 64-token question. */
    public static final int READER_PASSAGE_TOKENS = 384 - 64 - 3;
    /** 256 - 2: the embedder's window without [CLS] and [SEP]. */
    public static final int EMBEDDER_PASSAGE_TOKENS = 256 - 2;
    public static final int DEFAULT_MAX_TOKENS = Math.min(READER_PASSAGE_TOKENS, EMBEDDER_PASSAGE_TOKENS);
    public static final int DEFAULT_OVERLAP_TOKENS = 64;

    private final BertTokenizer tokenizer;
    private final int maxTokens;
    private final int overlapTokens;

    public PassageSplitter(BertTokenizer tokenizer) {
        this(tokenizer, DEFAULT_MAX_TOKENS, DEFAULT_OVERLAP_TOKENS);
    }

    public PassageSplitter(BertTokenizer tokenizer, int maxTokens, int overlapTokens) {
        if (tokenizer == null) {
            throw new IllegalArgumentException("PassageSplitter needs the reader's tokenizer.");
        }
        if (maxTokens < 1) {
            throw new IllegalArgumentException("maxTokens=" + maxTokens
                    + ": a passage holds at least one token.");
        }
        if (overlapTokens < 0 || overlapTokens >= maxTokens) {
            throw new IllegalArgumentException("overlapTokens=" + overlapTokens
                    + ": use 0 to less than maxTokens (" + maxTokens + ").");
        }
        this.tokenizer = tokenizer;
        this.maxTokens = maxTokens;
        this.overlapTokens = overlapTokens;
    }

    public BertTokenizer tokenizer() {
        return tokenizer;
    }

    public int maxTokens() {
        return maxTokens;
    }

    public int overlapTokens() {
        return overlapTokens;
    }

    /** The WordPiece tokens of {@code text}. */
    public int count(String text) {
        return tokenizer.tokenize(text).size();
    }

    /** The passages of {@code document}, in order; empty when it holds no text. */
    public List<Passage> split(String document) {
        if (document == null) {
            throw new IllegalArgumentException("The document must not be null.");
        }
        List<int[]> units = new ArrayList<>(); // {start, end, tokens}: sentences and word runs
        for (int[] sentence : SentenceSplitter.split(document)) {
            int tokens = count(document.substring(sentence[0], sentence[1]));
            if (tokens <= maxTokens) {
                units.add(new int[] {sentence[0], sentence[1], tokens});
            } else {
                units.addAll(wordRuns(document, sentence[0], sentence[1]));
            }
        }
        return pack(document, units);
    }

    /** An overlong sentence as consecutive runs of whole words (\S+), each within the limit. */
    private List<int[]> wordRuns(String document, int start, int end) {
        int limit = overlapTokens > 0 ? overlapTokens : maxTokens;
        List<int[]> runs = new ArrayList<>();
        int[] run = null;
        int i = start;
        while (i < end) {
            int cp = document.codePointAt(i);
            if (TextRules.isPythonSpace(cp)) {
                i += Character.charCount(cp);
                continue;
            }
            int wordStart = i;
            while (i < end && !TextRules.isPythonSpace(cp = document.codePointAt(i))) {
                i += Character.charCount(cp);
            }
            for (int[] piece : pieces(document, wordStart, i, limit)) {
                if (run != null && run[2] + piece[2] <= limit) {
                    run = new int[] {run[0], piece[1], run[2] + piece[2]};
                } else {
                    if (run != null) {
                        runs.add(run);
                    }
                    run = piece;
                }
            }
        }
        if (run != null) {
            runs.add(run);
        }
        return runs;
    }

    /** One word as {start, end, tokens} pieces of at most {@code limit} tokens each. */
    private List<int[]> pieces(String document, int start, int end, int limit) {
        List<int[]> pieces = new ArrayList<>();
        int tokens = count(document.substring(start, end));
        if (tokens <= limit) {
            pieces.add(new int[] {start, end, tokens});
            return pieces;
        }
        // Code-point boundaries of the word: the binary search moves by code points, as
        // Python's over str offsets does.
        int[] bounds = TextRules.utf16Offsets(document.substring(start, end));
        int m = bounds.length - 1;
        int at = 0;
        while (at < m) {
            int low = at + 1;
            int high = m; // the longest prefix within the limit (one character always fits)
            while (low < high) {
                int middle = (low + high + 1) / 2;
                if (count(document.substring(start + bounds[at], start + bounds[middle])) <= limit) {
                    low = middle;
                } else {
                    high = middle - 1;
                }
            }
            int from = start + bounds[at];
            int to = start + bounds[low];
            pieces.add(new int[] {from, to, count(document.substring(from, to))});
            at = low;
        }
        return pieces;
    }

    private List<Passage> pack(String document, List<int[]> units) {
        List<Passage> passages = new ArrayList<>();
        int first = 0;
        while (first < units.size()) {
            int last = first;
            int total = units.get(first)[2];
            while (last + 1 < units.size() && total + units.get(last + 1)[2] <= maxTokens) {
                last++;
                total += units.get(last)[2];
            }
            int start = units.get(first)[0];
            int end = units.get(last)[1];
            String text = document.substring(start, end);
            int tokens = count(text);
            // Whole words tokenize as the sum of their parts; a word cut by characters may not,
            // so the passage's own count decides, dropping units from its end if need be.
            while (tokens > maxTokens && last > first) {
                last--;
                end = units.get(last)[1];
                text = document.substring(start, end);
                tokens = count(text);
            }
            passages.add(new Passage(text, start, end, tokens));
            if (last + 1 >= units.size()) {
                break;
            }
            // The next passage starts on the earliest unit after `first` whose shared units
            // hold at most overlapTokens and, with the first unit this one lacks, fit in
            // maxTokens: every passage brings new text.
            int following = last + 1;
            int shared = 0;
            int fresh = units.get(last + 1)[2];
            while (following - 1 > first
                    && shared + units.get(following - 1)[2] <= overlapTokens
                    && shared + units.get(following - 1)[2] + fresh <= maxTokens) {
                following--;
                shared += units.get(following)[2];
            }
            first = following;
        }
        return passages;
    }
}
