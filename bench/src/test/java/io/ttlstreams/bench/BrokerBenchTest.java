package io.ttlstreams.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class BrokerBenchTest {

    @Test
    void shouldRotateTheOrderEachRound() {
        List<String> variants = List.of("A", "B", "C");
        assertThat(BrokerBench.rotated(variants, 0)).containsExactly("A", "B", "C");
        assertThat(BrokerBench.rotated(variants, 1)).containsExactly("B", "C", "A");
        assertThat(BrokerBench.rotated(variants, 2)).containsExactly("C", "A", "B");
        assertThat(BrokerBench.rotated(variants, 3)).containsExactly("A", "B", "C");
    }

    @Test
    void shouldPutEveryVariantFirstOnceInAsManyRoundsAsVariants() {
        List<BrokerBench.Variant> firsts = IntStream.range(0, BrokerBench.VARIANTS.size())
                .mapToObj(round ->
                        BrokerBench.rotated(BrokerBench.VARIANTS, round).get(0))
                .toList();
        assertThat(firsts).containsExactlyInAnyOrderElementsOf(BrokerBench.VARIANTS);
    }
}
