package io.ttlstreams.embedded.standin;

import static org.assertj.core.api.Assertions.assertThat;

import de.bwaldvogel.mongo.bson.BsonTimestamp;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ResumeTokenTest {

    @Test
    void shouldWriteTheKeyStringTimestampThenEpochPositionAndFlagInUpperCaseHexWhenRendered() {
        BsonTimestamp time = new BsonTimestamp(Instant.ofEpochSecond(1_795_975_792L), 3);
        ResumeToken token = new ResumeToken(time, 0x00AB_CDEF_0123_4567L, 42, true);

        Object data = token.toDocument().get("_data");

        assertThat(data)
                .isEqualTo("82" + String.format("%016X", time.getValue()) + "00ABCDEF01234567" + "000000000000002A"
                        + "01");
    }

    @Test
    void shouldReadBackEveryFieldWhenParsingARenderedToken() {
        ResumeToken token =
                new ResumeToken(new BsonTimestamp(Instant.ofEpochSecond(1_700_000_000L), 7), Long.MAX_VALUE, 0, false);

        assertThat(ResumeToken.parse(token.toDocument())).contains(token);
    }
}
