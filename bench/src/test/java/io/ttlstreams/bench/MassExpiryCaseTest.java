package io.ttlstreams.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MassExpiryCaseTest {

    @Test
    void shouldNameTheCaseDefaultsWhenItHasNoSettings() {
        assertThat(MassExpiryBench.Case.of(Map.of(), 10).name()).isEqualTo("defaults");
    }

    @Test
    void shouldNameTheCaseByItsSettingsInOrderWhenItHasSome() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("batch.size", "262144");
        settings.put("ttl.punctuate.max.entries", "50000");

        MassExpiryBench.Case drain = MassExpiryBench.Case.of(settings, 20_000);

        assertThat(drain.name()).isEqualTo("batch.size=262144 ttl.punctuate.max.entries=50000");
        assertThat(drain.settings()).isEqualTo(settings);
        assertThat(drain.documents()).isEqualTo(20_000);
    }
}
