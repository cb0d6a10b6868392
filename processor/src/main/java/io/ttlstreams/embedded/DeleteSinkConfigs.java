package io.ttlstreams.embedded;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The MongoDB sink connector configuration that applies ttl-streams delete commands (see "The delete command"
 * in the API contract): for each record, {@code deleteOne(filter = value._id)} in the namespace named by
 * {@code value.ns.db} / {@code value.ns.coll}.
 *
 * <p>Unlike {@link StandInSourceConfigs}, nothing here is specific to the stand-in; it is the configuration a
 * real deployment needs too. Commands are read with {@code read_committed} because the processor writes them in
 * exactly-once transactions; commands the sink cannot apply (not JSON, no {@code _id} document, no
 * {@code ns}) go to a dead-letter topic instead of stopping the sink.
 */
public final class DeleteSinkConfigs {

    /** The connector class. */
    public static final String CONNECTOR_CLASS = "com.mongodb.kafka.connect.MongoSinkConnector";
    /** The connector name the embedded stack uses. */
    public static final String CONNECTOR_NAME = "mongo-delete-sink";

    /**
     * The sink's fallback database when a command names none. It is never used, because
     * {@code namespace.mapper.error.if.invalid=true} sends such commands to the dead-letter topic, but the sink
     * insists on a value; an obviously foreign name keeps a misconfiguration from deleting in a real database.
     */
    static final String UNMAPPED_DATABASE = "ttl_streams_unmapped";

    private DeleteSinkConfigs() {
    }

    /**
     * @param deleteTopic      the topic the processor writes delete commands to (e.g. {@code ttl.deletes})
     * @param deadLetterTopic  where commands the sink cannot apply go (e.g. {@code ttl.sink.dlq})
     * @param connectionString the MongoDB connection string
     * @return the sink connector configuration
     */
    public static Map<String, String> forTopic(String deleteTopic, String deadLetterTopic, String connectionString) {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("connector.class", CONNECTOR_CLASS);
        config.put("tasks.max", "1");
        config.put("topics", deleteTopic);
        config.put("connection.uri", connectionString);
        config.put("database", UNMAPPED_DATABASE);
        // Strings, parsed by the sink as extended JSON: a JsonConverter would turn {"$date": ...} into a map and
        // the filter would silently lose the date.
        config.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        config.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
        // value._id is the complete filter: document key + condition fields (dotted paths, $and) as they are.
        config.put("document.id.strategy",
                "com.mongodb.kafka.connect.sink.processor.id.strategy.ProvidedInValueStrategy");
        // The id post-processor would re-set value._id to itself; without this it logs a WARN for every record.
        config.put("document.id.strategy.overwrite.existing", "true");
        config.put("writemodel.strategy",
                "com.mongodb.kafka.connect.sink.writemodel.strategy.DeleteOneBusinessKeyStrategy");
        config.put("namespace.mapper", "com.mongodb.kafka.connect.sink.namespace.mapping.FieldPathNamespaceMapper");
        config.put("namespace.mapper.value.database.field", "ns.db");
        config.put("namespace.mapper.value.collection.field", "ns.coll");
        // Without this a command lacking ns would be applied to <database>.<topic> instead of failing.
        config.put("namespace.mapper.error.if.invalid", "true");
        // Only commands from committed transactions (the processor runs exactly_once_v2); needs the worker's
        // connector.client.config.override.policy=All.
        config.put("consumer.override.isolation.level", "read_committed");
        config.put("errors.tolerance", "all");
        config.put("errors.log.enable", "true");
        config.put("errors.log.include.messages", "true");
        config.put("errors.deadletterqueue.topic.name", deadLetterTopic);
        // The default of 3 cannot be met by a one-node cluster; Connect would fail creating the topic.
        config.put("errors.deadletterqueue.topic.replication.factor", "1");
        config.put("errors.deadletterqueue.context.headers.enable", "true");
        return config;
    }
}
