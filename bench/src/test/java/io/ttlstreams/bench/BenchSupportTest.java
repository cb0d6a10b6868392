package io.ttlstreams.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BenchSupportTest {

    @Test
    void shouldReadTheDocumentNumberBackFromItsKey() {
        for (long n : new long[] {0, 1, 199_999, 1_000_000_123L, Long.MAX_VALUE}) {
            assertThat(BenchSupport.idOf(BenchSupport.keyJson(n))).isEqualTo(n);
        }
    }
}
