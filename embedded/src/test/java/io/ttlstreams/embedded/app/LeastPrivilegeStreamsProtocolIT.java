package io.ttlstreams.embedded.app;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link LeastPrivilegeScenarios} under the streams rebalance protocol ({@code group.protocol=streams}): the group's
 * heartbeat ({@code Read} on the group, {@code Describe} on every topic of the topology) and the internal topics,
 * which the broker's group coordinator creates with the rights of the member that asks ({@code Create} on the topics
 * under {@code <application.id>-}, or on the cluster), work with the plan's ACLs, and each of them is needed.
 */
class LeastPrivilegeStreamsProtocolIT extends LeastPrivilegeScenarios {

    static final AuthorizationLog AUTHORIZATIONS = new AuthorizationLog();

    @RegisterExtension
    static final EmbeddedPipelineExtension PIPELINE =
            EmbeddedPipelineExtension.with(streamsProtocol()).watchedBy(AUTHORIZATIONS);

    private static Map<String, String> streamsProtocol() {
        Map<String, String> settings = new HashMap<>(settings());
        settings.put("group.protocol", "streams");
        return settings;
    }

    LeastPrivilegeStreamsProtocolIT() {
        super(AUTHORIZATIONS, PIPELINE);
    }
}
