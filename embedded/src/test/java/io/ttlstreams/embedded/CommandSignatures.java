package io.ttlstreams.embedded;

import io.ttlstreams.contract.SigningKey;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Signs delete commands a test writes to the delete topic itself, in the headers the sink guard checks. */
public final class CommandSignatures {

    private CommandSignatures() {}

    /**
     * {@code record} with a signature by {@code signer} of its key and value, and {@code keyId} as the key's id (which
     * a test may set to another key's, to forge).
     */
    public static ProducerRecord<String, String> signed(
            ProducerRecord<String, String> record, String keyId, SigningKey signer) {
        record.headers().add(SigningKey.KEY_ID_HEADER, keyId.getBytes(StandardCharsets.US_ASCII));
        record.headers()
                .add(
                        SigningKey.SIGNATURE_HEADER,
                        signer.sign(
                                        record.key().getBytes(StandardCharsets.UTF_8),
                                        record.value().getBytes(StandardCharsets.UTF_8))
                                .getBytes(StandardCharsets.US_ASCII));
        return record;
    }
}
