package io.ttlstreams.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.config.OutputTopicOptions;
import io.ttlstreams.config.SchedulerOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.state.ScheduleStores;
import io.ttlstreams.topology.TtlTopology;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchSupportTest {

    @Test
    void shouldReadTheDocumentNumberBackFromItsKey() {
        for (long n : new long[] {0, 1, 199_999, 1_000_000_123L, Long.MAX_VALUE}) {
            assertThat(BenchSupport.idOf(BenchSupport.keyJson(n))).isEqualTo(n);
        }
    }

    @Test
    void shouldHaveTheTopologyPublishTheNoticeWhenAnEntryIsScheduledDirectlyWithOne(@TempDir Path dir) {
        TtlStreamsConfig config = BenchSupport.config(Map.of(
                SchedulerOptions.PUNCTUATE_INTERVAL_MS_CONFIG,
                "100",
                OutputTopicOptions.EXPIRED_TOPIC_CONFIG,
                "expired",
                "ttl.rule.sessions.notice.before.seconds",
                "1"));
        long deadline = BenchSupport.START.toEpochMilli() + 3_000;
        try (TopologyTestDriver driver = new TopologyTestDriver(
                TtlTopology.build(config), BenchSupport.streamsProperties(config, dir), BenchSupport.START)) {
            BenchSupport.scheduleDirectly(
                    driver.getKeyValueStore(ScheduleStores.SCHEDULE),
                    driver.getKeyValueStore(ScheduleStores.INDEX),
                    driver.getKeyValueStore(ScheduleStores.TASK),
                    7,
                    deadline,
                    1_000);
            TestOutputTopic<String, String> expired =
                    driver.createOutputTopic("expired", new StringDeserializer(), new StringDeserializer());
            driver.advanceWallClockTime(Duration.ofMillis(2_000));

            List<String> notices = expired.readValuesToList();
            assertThat(notices).hasSize(1);
            BsonDocument notice = BsonDocument.parse(notices.get(0));
            assertThat(notice.getString("type").getValue()).isEqualTo("EXPIRING");
            assertThat(notice.getString("noticeAt").getValue()).isEqualTo("2026-01-01T00:00:02Z");
            assertThat(notice.getString("deadline").getValue()).isEqualTo("2026-01-01T00:00:03Z");
        }
    }
}
