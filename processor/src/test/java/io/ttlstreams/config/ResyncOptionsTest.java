package io.ttlstreams.config;

import static io.ttlstreams.config.TestConfigs.assertRejectedNaming;
import static io.ttlstreams.config.TestConfigs.config;
import static io.ttlstreams.config.TestConfigs.configReadingFiles;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Resync options: the MongoDB connection string, the sweep's interval, the batch size. */
class ResyncOptionsTest {

    @Test
    void shouldHaveNoResyncSourceAndNoSweepByDefault() {
        TtlStreamsConfig config = config();

        assertThat(config.mongodbUri()).isEmpty();
        assertThat(config.resyncInterval()).isEmpty();
        assertThat(config.resyncBatchSize()).isEqualTo(1000);
    }

    @Test
    void shouldReadTheOptions() {
        TtlStreamsConfig config = config(
                "ttl.mongodb.uri", "mongodb+srv://ttl:s3cret@cluster0.example.net/",
                "ttl.resync.interval.ms", "3600000",
                "ttl.resync.batch.size", "500");

        assertThat(config.mongodbUri()).contains("mongodb+srv://ttl:s3cret@cluster0.example.net/");
        assertThat(config.resyncInterval()).contains(Duration.ofHours(1));
        assertThat(config.resyncBatchSize()).isEqualTo(500);
    }

    @Test
    void shouldRefuseWhatIsNoMongoConnectionStringWithoutQuotingIt() {
        assertThatThrownBy(() -> config("ttl.mongodb.uri", "http://ttl:s3cret@mongo:27017"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ttl.mongodb.uri")
                .hasMessageContaining("Must be a MongoDB connection string")
                .hasMessageNotContaining("s3cret");
    }

    @Test
    void shouldRefuseANegativeIntervalAndAnEmptyBatch() {
        assertRejectedNaming("ttl.resync.interval.ms", "ttl.resync.interval.ms", "-1");
        assertRejectedNaming("ttl.resync.batch.size", "ttl.resync.batch.size", "0");
    }

    @Test
    void shouldReadTheConnectionStringThroughAConfigProvider(@TempDir Path dir) throws IOException {
        Path secrets =
                Files.writeString(dir.resolve("mongo.properties"), "uri=mongodb://ttl:fr0m-a-File@mongo:27017\n");

        TtlStreamsConfig config = configReadingFiles("ttl.mongodb.uri", "${file:" + secrets + ":uri}");

        assertThat(config.mongodbUri()).contains("mongodb://ttl:fr0m-a-File@mongo:27017");
        assertThat(config.values().toString()).doesNotContain("fr0m-a-File");
    }

    @Test
    void shouldSayAReferenceWithoutConfigProvidersIsUnresolved() {
        assertThatThrownBy(() -> config("ttl.mongodb.uri", "${file:/secrets/mongo.properties:uri}"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ttl.mongodb.uri")
                .hasMessageContaining("unresolved config provider reference");
    }
}
