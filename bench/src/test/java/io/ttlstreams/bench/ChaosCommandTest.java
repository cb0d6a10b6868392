package io.ttlstreams.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bench chaos}'s choices of variants and scenarios, refused by name before anything starts. */
class ChaosCommandTest {

    @TempDir
    Path out;

    @Test
    void shouldRefuseAnUnknownScenarioByNameWhenTheVariantsAreValid() {
        String error = runFailing("--variants", "standbys,streams,standbys", "--scenarios", "rolling-restart,reboot");
        assertThat(error).contains("--scenarios: unknown scenario reboot").contains("rolling-restart");
        assertThat(out).isEmptyDirectory();
    }

    @Test
    void shouldRefuseAnUnknownVariantNamingTheStreamsProtocolAmongTheKnown() {
        assertThat(runFailing("--variants", "cooperative", "--scenarios", "rolling-restart"))
                .contains("unknown variant cooperative")
                .contains("streams");
    }

    /** Runs the command with {@code --out}, expects exit code 2, returns what it wrote to stderr. */
    private String runFailing(String... args) {
        String[] all = Arrays.copyOf(args, args.length + 2);
        all[args.length] = "--out";
        all[args.length + 1] = out.toString();
        return RefusedRun.stderr(new ChaosCommand(), all);
    }
}
