package io.ttlstreams.serde;

import io.ttlstreams.contract.DeleteCommand;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Writes a {@link DeleteCommand}'s record value, {@link DeleteCommand#valueJson()} in UTF-8, the form the MongoDB
 * sink connector reads with its {@code StringConverter}. The record key is the command's {@link
 * DeleteCommand#keyJson()}, written by a plain string serializer.
 */
public final class DeleteCommandSerializer implements Serializer<DeleteCommand> {

    @Override
    public byte[] serialize(String topic, DeleteCommand command) {
        return command == null ? null : command.valueJson().getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public byte[] serialize(String topic, Headers headers, DeleteCommand command) {
        return serialize(topic, command);
    }
}
