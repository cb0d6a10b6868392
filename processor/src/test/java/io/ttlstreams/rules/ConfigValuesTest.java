package io.ttlstreams.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ConfigValuesTest {

    @ParameterizedTest
    @EnumSource(TtlMode.class)
    void shouldRoundTripModes(TtlMode mode) {
        assertThat(TtlMode.fromConfigValue(mode.configValue())).isEqualTo(mode);
    }

    @ParameterizedTest
    @EnumSource(FieldFormat.class)
    void shouldRoundTripFormats(FieldFormat format) {
        assertThat(FieldFormat.fromConfigValue(format.configValue())).isEqualTo(format);
    }

    @Test
    void shouldUseTheDocumentedSpellings() {
        assertThat(TtlMode.LAST_MODIFIED.configValue()).isEqualTo("last-modified");
        assertThat(FieldFormat.EPOCH_SECONDS.configValue()).isEqualTo("epoch-seconds");
    }

    @Test
    void shouldSpellEveryConstantAsItsLowercaseNameWithHyphensWhenListed() {
        assertThat(ConfigValues.spellings(TtlMode.class)).containsExactly("field", "last-modified");
        assertThat(ConfigValues.spellings(FieldFormat.class)).containsExactly("date", "epoch-seconds", "epoch-millis");
    }

    @Test
    void shouldListValidValuesForAnUnknownSpelling() {
        assertThatThrownBy(() -> TtlMode.fromConfigValue("LAST_MODIFIED"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Unknown TTL mode 'LAST_MODIFIED'; expected one of field, last-modified");
        assertThatThrownBy(() -> FieldFormat.fromConfigValue("seconds"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Unknown field format 'seconds'; expected one of date, epoch-seconds, epoch-millis");
    }
}
