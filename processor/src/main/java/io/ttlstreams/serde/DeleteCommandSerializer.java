package io.ttlstreams.serde;

import io.ttlstreams.contract.DeleteCommand;
import io.ttlstreams.contract.SigningKey;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Writes a {@link DeleteCommand}'s record value, {@link DeleteCommand#valueJson()} in UTF-8, the form the MongoDB
 * sink connector reads with its {@code StringConverter}. The record key is the command's {@link
 * DeleteCommand#keyJson()}, written by a plain string serializer.
 *
 * <p>With a {@link SigningKey}, it also signs the record: the serializer is the one place that has the whole command
 * and the record's headers, so it puts the signature of the key and value bytes in {@value
 * SigningKey#SIGNATURE_HEADER} and the key's id in {@value SigningKey#KEY_ID_HEADER} (lowercase hex, ASCII),
 * replacing any earlier ones. Kafka Streams passes the headers of the record it sends to both serializers. The value
 * holds the command's issue time ({@link DeleteCommand#issuedAtMillis()}), so the signature covers it too.
 */
public final class DeleteCommandSerializer implements Serializer<DeleteCommand> {

    private final Optional<SigningKey> signingKey;

    /** @param signingKey the key that signs each command; empty for unsigned commands */
    public DeleteCommandSerializer(Optional<SigningKey> signingKey) {
        this.signingKey = Objects.requireNonNull(signingKey, "signingKey");
    }

    /**
     * The value without headers, for an unsigned serializer only.
     *
     * @throws IllegalStateException when this serializer signs: a signature needs the record's headers
     */
    @Override
    public byte[] serialize(String topic, DeleteCommand command) {
        if (signingKey.isPresent()) {
            throw new IllegalStateException("A signing DeleteCommandSerializer needs the record's headers");
        }
        return value(command);
    }

    @Override
    public byte[] serialize(String topic, Headers headers, DeleteCommand command) {
        byte[] value = value(command);
        if (command != null && signingKey.isPresent()) {
            SigningKey key = signingKey.get();
            String signature = key.sign(command.keyJson().getBytes(StandardCharsets.UTF_8), value);
            headers.remove(SigningKey.KEY_ID_HEADER);
            headers.remove(SigningKey.SIGNATURE_HEADER);
            headers.add(SigningKey.KEY_ID_HEADER, key.id().getBytes(StandardCharsets.US_ASCII));
            headers.add(SigningKey.SIGNATURE_HEADER, signature.getBytes(StandardCharsets.US_ASCII));
        }
        return value;
    }

    private static byte[] value(DeleteCommand command) {
        return command == null ? null : command.valueJson().getBytes(StandardCharsets.UTF_8);
    }
}
