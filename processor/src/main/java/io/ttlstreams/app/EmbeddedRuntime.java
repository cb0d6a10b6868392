package io.ttlstreams.app;

import io.ttlstreams.config.TtlStreamsConfig;
import java.io.PrintStream;
import java.util.OptionalLong;

/**
 * The embedded development stack behind {@code run --embedded} and {@code run} without {@code --config}: a {@link
 * java.util.ServiceLoader service} that module {@code embedded} provides and the launcher script puts on the
 * classpath. The production artifact has none, so there {@code run} always needs a Kafka cluster.
 */
public interface EmbeddedRuntime {

    /**
     * Starts the stack for {@code config}, then the processor against it, and prints where each part listens.
     *
     * @return the running stack and processor, stopped by {@link Running#close()}
     */
    Running start(TtlStreamsConfig config, PrintStream out) throws InterruptedException;

    /** A running embedded stack with its processor. */
    interface Running extends AutoCloseable {

        /** The processor running against the stack. */
        TtlStreamsApp processor();

        /** Documents deleted from the stack's MongoDB so far, whatever deleted them; empty when not counted. */
        OptionalLong deletedDocuments();

        /** Stops the processor, then the stack. */
        @Override
        void close();
    }
}
