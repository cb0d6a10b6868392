package io.ttlstreams.embedded.app;

import org.junit.jupiter.api.extension.RegisterExtension;

/** The scenarios on the embedded pipeline, with the classic consumer-group protocol (Kafka Streams' default). */
class EmbeddedPipelineIT extends EmbeddedPipelineScenarios {

    // One partition: a barrier (a later marker that must be handled first) proves nothing across partitions.
    @RegisterExtension
    static final EmbeddedPipelineExtension PIPELINE =
            EmbeddedPipelineExtension.with(RULES).and("embedded.partitions", "1");

    @Override
    protected EmbeddedPipelineExtension pipeline() {
        return PIPELINE;
    }
}
