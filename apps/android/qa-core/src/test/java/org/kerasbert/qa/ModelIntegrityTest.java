package org.kerasbert.qa;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.Test;

/**
 * {@link ModelIntegrity} against apps/models/SHA256SUMS, which keras_bert's Python wrote and CI
 * checks with coreutils' sha256sum: the JVM's SHA-256 must agree on the shipped files and refuse
 * the model with one byte flipped in its weights.
 */
public class ModelIntegrityTest {
    private static Path models() {
        return Fixtures.repoRoot().resolve("apps").resolve("models");
    }

    private static String manifest() throws IOException {
        return new String(Files.readAllBytes(models().resolve("SHA256SUMS")), StandardCharsets.UTF_8);
    }

    @Test
    public void shippedFilesMatchTheShippedManifest() throws IOException {
        for (String name : new String[] {"squad_minilm_int8.tflite", "vocab.txt"}) {
            ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(models().resolve(name)));
            assertTrue(name, ModelIntegrity.verify(name, bytes, manifest()));
            assertEquals("position kept", 0, bytes.position());
        }
    }

    @Test
    public void aFlippedWeightByteIsRefusedWithTheFileNamed() throws IOException {
        byte[] data = Files.readAllBytes(models().resolve("squad_minilm_int8.tflite"));
        data[data.length / 2] ^= 1;
        try {
            ModelIntegrity.verify("squad_minilm_int8.tflite", ByteBuffer.wrap(data), manifest());
            fail("a corrupted model passed");
        } catch (IllegalStateException e) {
            assertTrue(e.getMessage(), e.getMessage().startsWith("The file squad_minilm_int8.tflite is corrupted"));
        }
    }

    @Test
    public void unlistedFilesAreNotCheckedAndBothLineFormsAreRead() throws IOException {
        assertFalse(ModelIntegrity.verify("other.tflite", ByteBuffer.wrap(new byte[] {1}), manifest()));
        String hex = "ab".repeat(32);
        Map<String, String> entries = ModelIntegrity.parseManifest(
                hex + "  a.tflite\n" + hex.toUpperCase() + " *b c.txt\r\nnot a line\n");
        assertEquals(2, entries.size());
        assertEquals(hex, entries.get("a.tflite"));
        assertEquals(hex, entries.get("b c.txt"));
    }
}
