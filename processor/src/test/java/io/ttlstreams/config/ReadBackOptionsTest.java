package io.ttlstreams.config;

import static io.ttlstreams.config.TestConfigs.assertRejectedNaming;
import static io.ttlstreams.config.TestConfigs.config;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The confirmation options: the mode (reading back whenever there is a MongoDB to read), the read delay, the
 * look-ups' batch size and rate.
 */
class ReadBackOptionsTest {

    private static final String URI = "mongodb://mongo:27017";

    @Test
    void shouldConfirmByEventsAndLateReadsByDefaultOnlyWhenAMongoUriIsSet() {
        assertThat(config().confirmMode()).isEqualTo(ConfirmMode.CHANGE_STREAM);
        assertThat(config("ttl.mongodb.uri", URI).confirmMode()).isEqualTo(ConfirmMode.AUTO);
        assertThat(config().confirmReadBatchSize()).isEqualTo(100);
        assertThat(config().confirmReadDelay()).isEqualTo(Duration.ofSeconds(2));
        assertThat(config().confirmReadMaxPerSecond()).isEqualTo(50);
    }

    @Test
    void shouldTakeTheModeAskedFor() {
        assertThat(config("ttl.mongodb.uri", URI, "ttl.confirm.mode", "change-stream")
                        .confirmMode())
                .isEqualTo(ConfirmMode.CHANGE_STREAM);
        assertThat(config("ttl.mongodb.uri", URI, "ttl.confirm.mode", "read-back")
                        .confirmMode())
                .isEqualTo(ConfirmMode.READ_BACK);
        assertThat(config("ttl.confirm.mode", "change-stream").confirmMode()).isEqualTo(ConfirmMode.CHANGE_STREAM);
    }

    @Test
    void shouldRefuseAReadingModeWithoutAMongoUri() {
        assertRejectedNaming("ttl.confirm.mode", "ttl.confirm.mode", "read-back");
        assertRejectedNaming("ttl.mongodb.uri", "ttl.confirm.mode", "auto");
    }

    @Test
    void shouldRefuseAnUnknownMode() {
        assertRejectedNaming("ttl.confirm.mode", "ttl.mongodb.uri", URI, "ttl.confirm.mode", "read");
    }

    @Test
    void shouldRefuseABatchSizeOutsideOneToAThousand() {
        assertRejectedNaming("ttl.confirm.read.batch.size", "ttl.confirm.read.batch.size", "0");
        assertRejectedNaming("ttl.confirm.read.batch.size", "ttl.confirm.read.batch.size", "1001");
        assertThat(config("ttl.confirm.read.batch.size", "1000").confirmReadBatchSize())
                .isEqualTo(1000);
    }

    @Test
    void shouldRefuseAReadRateOrDelayBelowOne() {
        assertRejectedNaming("ttl.confirm.read.max.per.second", "ttl.confirm.read.max.per.second", "0");
        assertRejectedNaming("ttl.confirm.read.delay.ms", "ttl.confirm.read.delay.ms", "0");
    }
}
