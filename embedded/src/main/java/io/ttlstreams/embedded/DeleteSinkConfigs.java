package io.ttlstreams.embedded;

import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.contract.NamespacePattern;
import java.util.List;
import java.util.Map;

/**
 * The embedded stack's delete sink: the production configuration of {@link ConnectorConfigs#sink}, for
 * each record {@code deleteOne(filter = value._id)} in the namespace named by {@code value.ns}, behind the sink
 * guard, which the worker loads from the application classpath. Unlike
 * {@link StandInSourceConfigs}, nothing here is specific to the stand-in; only the one-node broker
 * needs a setting of its own.
 */
public final class DeleteSinkConfigs {

    /** The connector class. */
    public static final String CONNECTOR_CLASS = ConnectorConfigs.SINK_CONNECTOR;
    /** The sink guard's transformation class. */
    public static final String GUARD_CLASS = ConnectorConfigs.SINK_GUARD;
    /** The connector name the embedded stack uses. */
    public static final String CONNECTOR_NAME = "mongo-delete-sink";

    private DeleteSinkConfigs() {}

    /**
     * The production sink configuration ({@link ConnectorConfigs#sink}) for a one-node broker.
     *
     * @param deleteTopic      the topic the processor writes delete commands to (e.g. {@code ttl.deletes})
     * @param deadLetterTopic  where commands the sink cannot apply go (e.g. {@code ttl.sink.dlq})
     * @param connectionString the MongoDB connection string
     * @param allowedNamespaces the namespaces the guard lets commands delete in
     * @param signingKey       the secret the guard verifies signatures with, the processor's: a config provider
     *                         reference to it ({@link EmbeddedConnect#secretReference}), which is what Connect's REST
     *                         API shows
     * @return the sink connector configuration
     */
    public static Map<String, String> forTopic(
            String deleteTopic,
            String deadLetterTopic,
            String connectionString,
            List<NamespacePattern> allowedNamespaces,
            String signingKey) {
        Map<String, String> config =
                ConnectorConfigs.sink(deleteTopic, deadLetterTopic, connectionString, allowedNamespaces, signingKey);
        // The default of 3 cannot be met by a one-node cluster; Connect would fail creating the topic.
        config.put("errors.deadletterqueue.topic.replication.factor", "1");
        return config;
    }
}
