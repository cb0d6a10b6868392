package io.ttlstreams.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PercentEncodingTest {

    @ParameterizedTest
    @ValueSource(strings = {"a+b", "a b", "a/b", "100%", "%2B", "ünïcødé 文字 😀", "{\"_id\": \"s 1+2/3\"}", "", "?&=#"})
    void shouldRoundTripWhenTextHoldsReservedOrNonAsciiCharacters(String text) {
        assertThat(PercentEncoding.decode(PercentEncoding.encode(text))).isEqualTo(text);
    }

    @Test
    void shouldWriteSpaceAsPercentTwentyAndEscapePlusSlashAndPercentWhenEncoding() {
        assertThat(PercentEncoding.encode("a b+c/d%e")).isEqualTo("a%20b%2Bc%2Fd%25e");
        assertThat(PercentEncoding.encode("é")).isEqualTo("%C3%A9");
    }

    @Test
    void shouldKeepPlusAsPlusWhenDecoding() {
        assertThat(PercentEncoding.decode("a+b%20c")).isEqualTo("a+b c");
    }

    @Test
    void shouldRefuseMalformedEscapeWhenDecoding() {
        assertThatThrownBy(() -> PercentEncoding.decode("%zz")).isInstanceOf(IllegalArgumentException.class);
    }
}
