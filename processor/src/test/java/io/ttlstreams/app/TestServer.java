package io.ttlstreams.app;

import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.topology.TtlTopology;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;

/**
 * A real {@link OperationsSurface} on a free loopback port over a Kafka Streams instance that was created and never
 * started (no broker): what a probe sees during start-up.
 */
final class TestServer implements AutoCloseable {

    final OperationsSurface server;
    private final KafkaStreams streams;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private TestServer(OperationsSurface server, KafkaStreams streams) {
        this.server = server;
        this.streams = streams;
    }

    /** A one-rule configuration on a free loopback port, with {@code extra} over it. */
    static TtlStreamsConfig config(Map<String, String> extra) {
        Map<String, String> props = new HashMap<>(Map.of(
                "bootstrap.servers", "127.0.0.1:1",
                "ttl.http.port", "0",
                "ttl.http.bind.address", "127.0.0.1",
                "ttl.health.interval.ms", "600000"));
        props.putAll(extra);
        return TestConfigs.config(props);
    }

    static TestServer start(Path stateDir, Map<String, String> extra) {
        Map<String, String> props = new HashMap<>(extra);
        props.put("state.dir", stateDir.toString());
        TtlStreamsConfig config = config(props);
        OperationsSurface server = OperationsSurface.bind(config, Optional.empty());
        Properties streamsProps = TtlTopology.streamsProperties(config);
        streamsProps.put(StreamsConfig.APPLICATION_SERVER_CONFIG, server.applicationServer());
        KafkaStreams streams = new KafkaStreams(TtlTopology.build(config), streamsProps);
        server.start(streams);
        return new TestServer(server, streams);
    }

    URI url() {
        return server.url();
    }

    HttpResponse<String> get(String pathAndQuery, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url() + pathAndQuery.substring(1)))
                .timeout(Duration.ofSeconds(5))
                .GET();
        if (headers.length > 0) {
            request.headers(headers);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpClient http() {
        return http;
    }

    @Override
    public void close() {
        server.close();
        streams.close();
    }
}
