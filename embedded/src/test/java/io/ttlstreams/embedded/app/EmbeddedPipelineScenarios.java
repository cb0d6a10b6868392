package io.ttlstreams.embedded.app;

import com.mongodb.client.MongoClient;
import io.ttlstreams.app.TtlStreamsApp;
import io.ttlstreams.config.TtlStreamsConfig;

/**
 * The scenarios on an embedded pipeline, as {@code ttl-streams run} starts it: a KRaft broker, the official MongoDB
 * source and sink connectors in an in-process Connect worker, and the MongoDB stand-in, on free ports. Each subclass
 * registers the pipeline's extension, with its settings, on a static field of its own.
 */
abstract class EmbeddedPipelineScenarios extends PipelineScenarios {

    /** The subclass's pipeline. */
    protected abstract EmbeddedPipelineExtension pipeline();

    /** The extension starts the pipeline before this class's {@code @BeforeAll} methods run. */
    @Override
    protected void startPipeline() {}

    /** The extension stops the pipeline after this class's {@code @AfterAll} methods ran. */
    @Override
    protected void stopPipeline() {}

    @Override
    protected MongoClient mongo() {
        return pipeline().mongo();
    }

    @Override
    protected String bootstrapServers() {
        return pipeline().pipeline().stack().bootstrapServers();
    }

    @Override
    protected TtlStreamsConfig processorConfig() {
        return pipeline().pipeline().processorConfig();
    }

    @Override
    protected TtlStreamsApp processor() {
        return pipeline().pipeline().processor();
    }

    @Override
    protected void stopProcessor() {
        pipeline().pipeline().stopProcessor();
    }

    @Override
    protected void startProcessor() throws InterruptedException {
        pipeline().pipeline().startProcessor();
    }
}
