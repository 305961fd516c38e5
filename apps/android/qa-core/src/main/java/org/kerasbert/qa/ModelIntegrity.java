package org.kerasbert.qa;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks model files against the {@code SHA256SUMS} shipped beside them (apps/models/), so a
 * corrupted asset or download is an error instead of wrong answers: a TFLite flatbuffer carries
 * no checksum of its weights, and a flipped bit in one loads and runs.
 *
 * <p>The manifest is coreutils' {@code sha256sum} format, one {@code <64 hex>  <name>} (or
 * {@code <64 hex> *<name>}) line per file, as keras_bert's export writes it.
 */
public final class ModelIntegrity {
    private static final Pattern LINE = Pattern.compile("^([0-9a-fA-F]{64}) [ *](.+)$");

    private ModelIntegrity() {}

    /** The manifest's entries, file name to lower-case hex digest, in file order. */
    public static Map<String, String> parseManifest(String text) {
        Map<String, String> entries = new LinkedHashMap<>();
        for (String line : text.split("\n", -1)) {
            Matcher m = LINE.matcher(line.endsWith("\r") ? line.substring(0, line.length() - 1) : line);
            if (m.matches()) {
                entries.put(m.group(2), m.group(1).toLowerCase(Locale.ROOT));
            }
        }
        return entries;
    }

    /** The lower-case hex SHA-256 of the buffer's remaining bytes (its position is kept). */
    public static String sha256Hex(ByteBuffer bytes) {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available on this JVM", e);
        }
        digest.update(bytes.duplicate());
        StringBuilder hex = new StringBuilder(64);
        for (byte b : digest.digest()) {
            hex.append(String.format(Locale.ROOT, "%02x", b & 0xff));
        }
        return hex.toString();
    }

    /**
     * Checks {@code bytes} (the file {@code name}) against the manifest text.
     *
     * @return whether the file was checked: false when the manifest does not list it.
     * @throws IllegalStateException naming the file and both digests when they differ.
     */
    public static boolean verify(String name, ByteBuffer bytes, String manifestText) {
        String expected = parseManifest(manifestText).get(name);
        if (expected == null) {
            return false;
        }
        String got = sha256Hex(bytes);
        if (!got.equals(expected)) {
            throw new IllegalStateException("The file " + name + " is corrupted: its SHA-256 is "
                    + got.substring(0, 16) + "..., SHA256SUMS says " + expected.substring(0, 16)
                    + "... Reinstall the app (or rebuild it from apps/models).");
        }
        return true;
    }
}
