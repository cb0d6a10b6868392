package io.ttlstreams.embedded.app;

import io.ttlstreams.app.BundledConfig;
import io.ttlstreams.app.EmbeddedRuntime;
import io.ttlstreams.app.TtlStreamsApp;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.embedded.EmbeddedStack;
import java.io.PrintStream;
import java.util.OptionalLong;

/**
 * {@code run --embedded}: the {@link EmbeddedPipeline} started from the processor's command line, with a bundled
 * default configuration and a count of the documents deleted from the stand-in (its own count, which needs no change
 * stream: the Cosmos DB emulation, as Cosmos DB, refuses a database watch and reports no deletes).
 */
public final class LocalStackRuntime implements EmbeddedRuntime {

    @Override
    public TtlStreamsConfig defaultConfig() {
        return BundledConfig.load();
    }

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

    /** Where each part of the stack listens. */
    static void print(PrintStream out, EmbeddedPipeline pipeline) {
        EmbeddedStack stack = pipeline.stack();
        out.println(
                "  MongoDB stand-in : " + stack.mongoConnectionString() + "  (watched: " + stack.namespaces() + ")");
        out.println("  Kafka            : " + stack.bootstrapServers());
        out.println(
                "  Kafka Connect    : " + stack.connectUrl() + "  connectors " + stack.connectorNames() + " RUNNING");
        out.println("  processor HTTP   : " + pipeline.processor().httpUrl()
                + "  (status page; /health/ready, /metrics, /v1/...)");
        out.println("  data directory   : " + stack.dataDir()
                + (stack.deletesDataDirOnClose() ? " (deleted on exit)" : ""));
    }
}
