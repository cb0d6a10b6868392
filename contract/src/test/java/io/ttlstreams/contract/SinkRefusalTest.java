package io.ttlstreams.contract;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class SinkRefusalTest {

    @ParameterizedTest
    @EnumSource(SinkRefusal.class)
    void shouldReadTheLabelBackWhenTheGuardWroteIt(SinkRefusal refusal) {
        String reason = refusal.reason("some detail [with brackets]");

        assertThat(reason).startsWith(SinkRefusal.PREFIX + "[" + refusal.label() + "] ");
        assertThat(SinkRefusal.of(reason)).contains(refusal);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "Delete command refused by the sink guard: unsigned: the record has no ttl.signature header",
                "Delete command refused by the sink guard: [martian] detail",
                "Delete command refused by the sink guard: [signature",
                "Write errors: [BulkWriteError{index=0, code=13, message='not authorized'}]",
                ""
            })
    void shouldNameNoRefusalWhenTheReasonCarriesNoKnownLabel(String reason) {
        assertThat(SinkRefusal.of(reason)).isEmpty();
        assertThat(SinkRefusal.of(null)).isEmpty();
    }
}
