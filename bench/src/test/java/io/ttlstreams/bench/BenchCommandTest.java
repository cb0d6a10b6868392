package io.ttlstreams.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchCommandTest {

    @TempDir
    Path out;

    @Test
    void shouldParseSettingsInOrder() {
        assertThat(BenchCommand.settings("ttl.punctuate.max.entries=100000, ttl.punctuate.max.duration.ms=1000"))
                .containsExactly(
                        org.assertj.core.api.Assertions.entry("ttl.punctuate.max.entries", "100000"),
                        org.assertj.core.api.Assertions.entry("ttl.punctuate.max.duration.ms", "1000"));
    }

    @Test
    void shouldRejectSettingsWithoutAValue() {
        assertThatThrownBy(() -> BenchCommand.settings("ttl.punctuate.max.entries"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key=value");
    }

    @Test
    void shouldRefuseABadDrainConfigBeforeRunningAnything() {
        String error = runFailing("--quick", "--out", out.toString(), "--drain-config", "ttl.punctuate.max.entries=0");
        assertThat(error).contains("ttl.punctuate.max.entries");
        assertThat(out).isEmptyDirectory();
    }

    @Test
    void shouldRefuseAnUnknownSettingByName() {
        String error = runFailing("--quick", "--out", out.toString(), "--drain-config", "ttl.punctuate.max.entires=5");
        assertThat(error).contains("ttl.punctuate.max.entires");
    }

    @Test
    void shouldRefuseNoRounds() {
        assertThat(runFailing("--quick", "--out", out.toString(), "--rounds", "0"))
                .contains("--rounds must be positive");
    }

    private static String runFailing(String... args) {
        return RefusedRun.stderr(new BenchCommand(), args);
    }
}
