package io.ttlstreams.embedded.app;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import io.ttlstreams.app.TtlStreamsApp;
import io.ttlstreams.config.TtlStreamsConfig;
import java.util.HashMap;
import java.util.Map;

/**
 * The scenarios on the embedded pipeline, as {@code ttl-streams run} starts it: a KRaft broker, the
 * official MongoDB source and sink connectors in an in-process Connect worker, and the MongoDB
 * stand-in, on free ports.
 */
class EmbeddedPipelineIT extends PipelineScenarios {

    private EmbeddedPipeline pipeline;
    private MongoClient client;

    @Override
    protected void startPipeline() throws InterruptedException {
        Map<String, String> settings = new HashMap<>(RULES);
        settings.put("embedded.mongodb.port", "0");
        settings.put("embedded.kafka.port", "0");
        settings.put("embedded.connect.port", "0");
        // One partition: a barrier (a later marker that must be handled first) proves nothing across partitions.
        settings.put("embedded.partitions", "1");
        pipeline = EmbeddedPipeline.start(new TtlStreamsConfig(settings));
        client = MongoClients.create(pipeline.stack().mongoConnectionString());
    }

    @Override
    protected void stopPipeline() {
        if (client != null) {
            client.close();
        }
        if (pipeline != null) {
            pipeline.close();
        }
    }

    @Override
    protected MongoClient mongo() {
        return client;
    }

    @Override
    protected String bootstrapServers() {
        return pipeline.stack().bootstrapServers();
    }

    @Override
    protected TtlStreamsConfig processorConfig() {
        return pipeline.processorConfig();
    }

    @Override
    protected TtlStreamsApp processor() {
        return pipeline.processor();
    }

    @Override
    protected void stopProcessor() {
        pipeline.stopProcessor();
    }

    @Override
    protected void startProcessor() throws InterruptedException {
        pipeline.startProcessor();
    }
}
