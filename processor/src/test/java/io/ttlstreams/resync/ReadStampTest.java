package io.ttlstreams.resync;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.resync.ReadStamp.Source;
import java.time.Instant;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

class ReadStampTest {

    private static final Instant BEFORE = Instant.parse("2026-11-30T10:00:00.750Z");
    private static final BsonTimestamp SESSION = new BsonTimestamp(1_800_000_100, 3);
    private static final BsonTimestamp OPERATION = new BsonTimestamp(1_800_000_050, 2);
    private static final BsonTimestamp GOSSIPED = new BsonTimestamp(1_800_000_060, 1);

    private static BsonDocument response(BsonTimestamp operationTime, BsonTimestamp clusterTime) {
        BsonDocument response = new BsonDocument("ok", new BsonDouble(1));
        if (operationTime != null) {
            response.append("operationTime", operationTime);
        }
        if (clusterTime != null) {
            response.append("$clusterTime", new BsonDocument("clusterTime", clusterTime));
        }
        return response;
    }

    @Test
    void shouldPreferTheCausallyConsistentSessionsOperationTime() {
        assertThat(ReadStamp.choose(SESSION, response(OPERATION, GOSSIPED), BEFORE))
                .isEqualTo(new ReadStamp(SESSION, Source.OPERATION_TIME));
    }

    @Test
    void shouldTakeTheResponsesOperationTimeThenItsClusterTimeWithoutASession() {
        assertThat(ReadStamp.choose(null, response(OPERATION, GOSSIPED), BEFORE))
                .isEqualTo(new ReadStamp(OPERATION, Source.OPERATION_TIME));
        assertThat(ReadStamp.choose(null, response(null, GOSSIPED), BEFORE))
                .isEqualTo(new ReadStamp(GOSSIPED, Source.CLUSTER_TIME));
    }

    @Test
    void shouldFallBackToTheClockBeforeTheReadOrderedBelowEveryEventOfItsSecond() {
        ReadStamp stamp = ReadStamp.choose(null, response(null, null), BEFORE);

        assertThat(stamp.source()).isEqualTo(Source.WALL_CLOCK);
        assertThat(stamp.clusterTime()).isEqualTo(new BsonTimestamp((int) BEFORE.getEpochSecond(), 0));
        // An event of the same second, even one before the read, is newer: the resync never wins over it.
        BsonTimestamp sameSecond = new BsonTimestamp((int) BEFORE.getEpochSecond(), 1);
        assertThat(stamp.clusterTime().compareTo(sameSecond)).isNegative();
        assertThat(stamp.instant()).isEqualTo(Instant.parse("2026-11-30T10:00:00Z"));
    }

    @Test
    void shouldReadTheSecondsAsUnsigned() {
        ReadStamp beyond2038 = new ReadStamp(new BsonTimestamp((int) 3_000_000_000L, 0), Source.OPERATION_TIME);

        assertThat(beyond2038.instant()).isEqualTo(Instant.ofEpochSecond(3_000_000_000L));
    }
}
