package io.ttlstreams.config;

import static io.ttlstreams.config.TestConfigs.assertRejectedNaming;
import static io.ttlstreams.config.TestConfigs.config;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The read-back options: on whenever there is a MongoDB to read, and the look-ups' batch size. */
class ReadBackOptionsTest {

    private static final String URI = "mongodb://mongo:27017";

    @Test
    void shouldReadBackByDefaultOnlyWhenAMongoUriIsSet() {
        assertThat(config().confirmReadBack()).isFalse();
        assertThat(config("ttl.mongodb.uri", URI).confirmReadBack()).isTrue();
        assertThat(config().confirmReadBatchSize()).isEqualTo(100);
    }

    @Test
    void shouldTurnReadBackOffWhenAskedTo() {
        assertThat(config("ttl.mongodb.uri", URI, "ttl.confirm.read.back", "false")
                        .confirmReadBack())
                .isFalse();
        assertThat(config("ttl.confirm.read.back", "false").confirmReadBack()).isFalse();
    }

    @Test
    void shouldRefuseReadBackAskedForWithoutAMongoUri() {
        assertRejectedNaming("ttl.confirm.read.back", "ttl.confirm.read.back", "true");
        assertRejectedNaming("ttl.mongodb.uri", "ttl.confirm.read.back", "true");
    }

    @Test
    void shouldRefuseABatchSizeOutsideOneToAThousand() {
        assertRejectedNaming("ttl.confirm.read.batch.size", "ttl.confirm.read.batch.size", "0");
        assertRejectedNaming("ttl.confirm.read.batch.size", "ttl.confirm.read.batch.size", "1001");
        assertThat(config("ttl.confirm.read.batch.size", "1000").confirmReadBatchSize())
                .isEqualTo(1000);
    }
}
