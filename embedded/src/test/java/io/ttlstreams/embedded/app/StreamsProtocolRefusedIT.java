package io.ttlstreams.embedded.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.embedded.EmbeddedKafka;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code group.protocol=streams} against a broker whose group coordinator leaves the streams rebalance protocol out
 * ({@code group.coordinator.rebalance.protocols=classic,consumer}, though the cluster finalized {@code
 * streams.version}): the broker refuses the first heartbeat, and {@code ttl-streams run --config} stops with exit code
 * 2 and one line naming {@code group.protocol}, the stream thread not replaced.
 */
@Tag("integration")
class StreamsProtocolRefusedIT {

    @Test
    void shouldStopWithCode2NamingGroupProtocolWhenTheBrokerRefusesTheStreamsProtocol(@TempDir Path dir)
            throws Exception {
        try (EmbeddedKafka kafka =
                EmbeddedKafka.startWith(dir, Map.of("group.coordinator.rebalance.protocols", "classic,consumer"))) {
            try (Admin admin = kafka.setupAdmin()) {
                admin.createTopics(List.of(new NewTopic(TestConfigs.NAMESPACE, 1, (short) 1)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
            Properties settings = new Properties();
            settings.putAll(TestConfigs.settings(
                    "bootstrap.servers",
                    kafka.bootstrapServers(),
                    "group.protocol",
                    "streams",
                    "ttl.http.port",
                    "0",
                    "state.dir",
                    dir.resolve("state").toString()));
            Path config = dir.resolve("processor.properties");
            try (Writer writer = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
                settings.store(writer, null);
            }
            Path log = dir.resolve("run.log");
            Process run = EmbeddedPipelineExtension.startRun(config, log);
            try {
                assertThat(run.waitFor(2, TimeUnit.MINUTES))
                        .as("stopped; it printed:%n%s", Files.readString(log))
                        .isTrue();
            } finally {
                run.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
            String printed = Files.readString(log, StandardCharsets.UTF_8);
            assertThat(run.exitValue()).as(printed).isEqualTo(2);
            assertThat(printed.lines().filter(line -> line.startsWith("ttl-streams run: ")))
                    .singleElement()
                    .asString()
                    .startsWith("ttl-streams run: Invalid value streams for configuration group.protocol: a broker"
                            + " refused the streams rebalance protocol")
                    .contains("set group.protocol=classic");
            assertThat(printed).doesNotContain("replacing it");
        }
    }
}
