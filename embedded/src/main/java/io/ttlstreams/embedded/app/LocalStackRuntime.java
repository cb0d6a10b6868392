package io.ttlstreams.embedded.app;

import io.ttlstreams.app.EmbeddedRuntime;
import io.ttlstreams.app.TtlStreamsApp;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.embedded.EmbeddedKafka;
import io.ttlstreams.embedded.EmbeddedStack;
import io.ttlstreams.embedded.KafkaUsers;
import io.ttlstreams.platform.AclPlan;
import io.ttlstreams.platform.TopicPlan;
import java.io.PrintStream;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * {@code run --embedded}: the {@link EmbeddedPipeline} started from the processor's command line, with a bundled
 * default configuration and a count of the documents deleted from the stand-in (its own count, which needs no change
 * stream: the Cosmos DB emulation, as Cosmos DB, refuses a database watch and reports no deletes).
 */
public final class LocalStackRuntime implements EmbeddedRuntime {

    @Override
    public Running start(TtlStreamsConfig config, PrintStream out) throws InterruptedException {
        EmbeddedPipeline pipeline = EmbeddedPipeline.start(config);
        try {
            print(out, pipeline);
            EmbeddedStack stack = pipeline.stack();
            return new Running() {
                @Override
                public TtlStreamsApp processor() {
                    return pipeline.processor();
                }

                @Override
                public OptionalLong deletedDocuments() {
                    return OptionalLong.of(stack.mongo().deletedDocuments(stack.namespaces()));
                }

                @Override
                public void close() {
                    pipeline.close();
                }
            };
        } catch (RuntimeException e) {
            pipeline.close();
            throw e;
        }
    }

    /** Where each part of the stack listens, and, on a broker that enforces security, which user each runs as. */
    static void print(PrintStream out, EmbeddedPipeline pipeline) {
        EmbeddedStack stack = pipeline.stack();
        out.println(
                "  MongoDB stand-in : " + stack.mongoConnectionString() + "  (watched: " + stack.namespaces() + ")");
        Optional<KafkaUsers> users = stack.kafkaUsers();
        EmbeddedKafka kafka = stack.kafka();
        out.println("  Kafka            : " + stack.bootstrapServers()
                + (kafka.brokerCount() > 1
                        ? "  (" + kafka.brokerCount() + " brokers, "
                                + kafka.controllerIds().size()
                                + " controllers; replication factor " + kafka.replicationFactor()
                                + ", min.insync.replicas " + TopicPlan.minInSyncReplicas(kafka.replicationFactor())
                                + ")"
                        : "")
                + users.map(u -> "  (" + KafkaUsers.securitySettings().getProperty("security.protocol") + ", "
                                + EmbeddedKafka.SASL_MECHANISM
                                + "; ACLs enforced: exactly those ttl-streams platform renders)")
                        .orElse(""));
        users.ifPresent(u -> {
            String processor = pipeline.processor().security().describe();
            String[][] parts = {
                {"processor, resync", AclPlan.PROCESSOR_USER, "  (its clients: " + processor + ")"},
                {"source connectors", AclPlan.SOURCE_USER, ""},
                {"sink connector", AclPlan.SINK_USER, ""},
                {"Connect worker", AclPlan.CONNECT_USER, ""},
                {"approve (operators)", AclPlan.OPERATOR_USER, ""}
            };
            String label = "  Kafka users      : ";
            for (String[] part : parts) {
                out.printf("%s%-20s User:%s%s%n", label, part[0], part[1], part[2]);
                label = " ".repeat(label.length());
            }
            out.println(label + "their secrets in " + u.directory() + "/<user>/ (sasl.jaas.config, password; owner"
                    + " only)");
        });
        out.println(
                "  Kafka Connect    : " + stack.connectUrl() + "  connectors " + stack.connectorNames() + " RUNNING");
        out.println("  processor HTTP   : " + pipeline.processor().httpUrl()
                + "  (status page; /health/ready, /metrics, /v1/...)");
        out.println("  data directory   : " + stack.dataDir()
                + (stack.deletesDataDirOnClose() ? " (deleted on exit)" : ""));
    }
}
