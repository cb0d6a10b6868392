package io.ttlstreams.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/** The signature stays what it was when each record had a freshly keyed {@code Mac}, whatever signed before it. */
class SigningKeyTest {

    private static final String SECRET = "current-secret-of-at-least-32-bytes!!";
    private static final SigningKey KEY = SigningKey.of(SECRET);

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** The signature as defined, with a {@code Mac} looked up and keyed for this record alone. */
    private static String freshlyKeyed(byte[] key, byte[] value) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(bytes(SECRET), "HmacSHA256"));
        mac.update(ByteBuffer.allocate(4).putInt(key.length).array());
        mac.update(key);
        mac.update(ByteBuffer.allocate(4).putInt(value.length).array());
        mac.update(value);
        return HexFormat.of().formatHex(mac.doFinal());
    }

    private static byte[] value(int i) {
        return bytes(
                "{\"_id\": {\"_id\": \"d" + i + "\"}, \"ns\": {\"db\": \"app\", \"coll\": \"s\"}, \"n\": " + i + "}");
    }

    @Test
    void shouldSignAsTheDefinitionSaysWhenGivenAKnownRecord() {
        // HMAC-SHA256 over len(key) || key || len(value) || value, lengths 4 bytes big-endian (Python's hmac).
        assertThat(KEY.sign(
                        bytes("{\"_id\": \"d1\"}"),
                        bytes("{\"_id\": {\"_id\": \"d1\"}, \"ns\": {\"db\": \"app\", \"coll\": \"s\"}}")))
                .isEqualTo("7c6c8c1e83e3c3704e421110efdd8c694f6f8d919c512411500af393ba565391");
    }

    @Test
    void shouldGiveEachRecordTheFreshlyKeyedSignatureWhenRecordsAreSignedOneAfterAnother() throws Exception {
        for (int i = 0; i < 50; i++) {
            byte[] key = bytes("{\"_id\": \"d" + i + "\"}");
            assertThat(KEY.sign(key, value(i))).isEqualTo(freshlyKeyed(key, value(i)));
        }
        assertThat(KEY.sign(new byte[0], new byte[0])).isEqualTo(freshlyKeyed(new byte[0], new byte[0]));
        assertThat(KEY.sign(bytes("k"), value(1))).isEqualTo(freshlyKeyed(bytes("k"), value(1)));
    }

    @Test
    void shouldGiveEveryThreadTheFreshlyKeyedSignaturesWhenThreadsSignAtOnce() throws Exception {
        int records = 200;
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < records; i++) {
            expected.add(freshlyKeyed(bytes("k" + i), value(i)));
        }
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<List<String>>> signed = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                signed.add(threads.submit(() -> {
                    List<String> signatures = new ArrayList<>();
                    for (int i = 0; i < records; i++) {
                        signatures.add(KEY.sign(bytes("k" + i), value(i)));
                    }
                    return signatures;
                }));
            }
            for (Future<List<String>> signatures : signed) {
                assertThat(signatures.get(30, TimeUnit.SECONDS)).isEqualTo(expected);
            }
        } finally {
            threads.shutdownNow();
        }
    }
}
