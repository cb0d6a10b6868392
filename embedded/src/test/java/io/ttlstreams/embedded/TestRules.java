package io.ttlstreams.embedded;

import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.contract.Namespace;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/** Rules for the stack's own tests: one per namespace, expiring at the date in {@code expireAt}. */
final class TestRules {

    private TestRules() {}

    static TtlStreamsConfig expireAt(Namespace... namespaces) {
        Map<String, String> props = new LinkedHashMap<>();
        props.put(
                "ttl.rules",
                IntStream.range(0, namespaces.length).mapToObj(i -> "r" + i).collect(Collectors.joining(",")));
        for (int i = 0; i < namespaces.length; i++) {
            props.put("ttl.rule.r" + i + ".namespace", namespaces[i].toString());
            props.put("ttl.rule.r" + i + ".field", "expireAt");
            props.put("ttl.rule.r" + i + ".expire.after.seconds", "0");
        }
        return new TtlStreamsConfig(props);
    }
}
