package io.ttlstreams.connect;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;

/**
 * One connector as Kafka Connect's REST API takes it: {@code POST /connectors} with
 * {@code {"name": ..., "config": {...}}}.
 *
 * @param name   the connector's name, unique in the Connect cluster
 * @param config the connector's settings, in a stable order so that rendered files compare equal; unmodifiable
 */
public record ConnectorDefinition(String name, Map<String, String> config) {

    /** Fixed line separator and indentation: the committed files must not depend on the platform. */
    private static final JsonWriterSettings PRETTY = JsonWriterSettings.builder()
            .outputMode(JsonMode.RELAXED)
            .indent(true)
            .indentCharacters("  ")
            .newLineCharacters("\n")
            .build();

    /** Copies {@code config}, keeping its order. */
    public ConnectorDefinition {
        Objects.requireNonNull(name, "name");
        config = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(config, "config")));
    }

    /** The REST API's JSON, indented, ending with a newline. */
    public String toJson() {
        BsonDocument settings = new BsonDocument();
        config.forEach((key, value) -> settings.append(key, new BsonString(value)));
        return new BsonDocument("name", new BsonString(name))
                        .append("config", settings)
                        .toJson(PRETTY) + "\n";
    }
}
