package io.ttlstreams.embedded.app;

import com.mongodb.client.MongoClient;
import io.ttlstreams.app.TtlStreamsApp;
import io.ttlstreams.config.TtlStreamsConfig;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The scenarios on the embedded pipeline, as {@code ttl-streams run} starts it: a KRaft broker, the
 * official MongoDB source and sink connectors in an in-process Connect worker, and the MongoDB
 * stand-in, on free ports.
 */
class EmbeddedPipelineIT extends PipelineScenarios {

    // One partition: a barrier (a later marker that must be handled first) proves nothing across partitions.
    @RegisterExtension
    static final EmbeddedPipelineExtension PIPELINE =
            EmbeddedPipelineExtension.with(RULES).and("embedded.partitions", "1");

    /** The extension starts the pipeline before this class's {@code @BeforeAll} methods run. */
    @Override
    protected void startPipeline() {}

    /** The extension stops the pipeline after this class's {@code @AfterAll} methods ran. */
    @Override
    protected void stopPipeline() {}

    @Override
    protected MongoClient mongo() {
        return PIPELINE.mongo();
    }

    @Override
    protected String bootstrapServers() {
        return PIPELINE.pipeline().stack().bootstrapServers();
    }

    @Override
    protected TtlStreamsConfig processorConfig() {
        return PIPELINE.pipeline().processorConfig();
    }

    @Override
    protected TtlStreamsApp processor() {
        return PIPELINE.pipeline().processor();
    }

    @Override
    protected void stopProcessor() {
        PIPELINE.pipeline().stopProcessor();
    }

    @Override
    protected void startProcessor() throws InterruptedException {
        PIPELINE.pipeline().startProcessor();
    }
}
