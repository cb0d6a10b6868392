package io.ttlstreams.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The figures of a chaos scenario, from documents' lives. */
class ChaosLedgerTest {

    private static final long START = 1_000_000;

    private static ChaosLedger.Life life(ChaosLedger ledger, long id, long deadline, long gone) {
        ChaosLedger.Life life = ledger.add(id, START + deadline);
        life.gone = gone < 0 ? -1 : START + gone;
        life.firstCommand = gone < 0 ? -1 : START + gone - 50;
        life.commands = gone < 0 ? 0 : 1;
        return life;
    }

    @Test
    void shouldCountEarlyMissedAndRenewedDeletedWhenTheyHappen() {
        ChaosLedger ledger = new ChaosLedger();
        life(ledger, 1, 1_000, 1_200); // on time
        life(ledger, 2, 2_000, 1_900); // deleted early
        life(ledger, 3, 3_000, -1); // missed
        life(ledger, 4, 4_000, -1).renewed = true; // renewed and kept
        life(ledger, 5, 5_000, 6_000).renewed = true; // renewed and deleted
        ledger.get(1).commands = 3; // duplicates

        ChaosLedger.Figures figures = ledger.figures("v", "s", START, START, START + 10_000);

        assertThat(figures.documents()).isEqualTo(5);
        assertThat(figures.early()).isEqualTo(1);
        assertThat(figures.missed()).isEqualTo(1);
        assertThat(figures.renewedDeleted()).isEqualTo(1);
        assertThat(figures.commandsPerDocument()).isEqualTo(2.0); // 3 + 1 commands, 2 deleted documents
        assertThat(figures.maxLatenessMs()).isEqualTo(200);
    }

    @Test
    void shouldMeasureTimeToNormalFromTheStartToTheFirstDeadlineAfterTheLastLateOne() {
        ChaosLedger ledger = new ChaosLedger();
        life(ledger, 1, 1_000, 1_100);
        life(ledger, 2, 2_000, 9_000); // 7 s late
        life(ledger, 3, 3_000, 8_000); // 5 s late, the last late one
        life(ledger, 4, 4_000, 4_300);
        life(ledger, 5, 5_000, 5_200);

        ChaosLedger.Figures figures = ledger.figures("v", "s", START, START + 500, START + 6_000);

        assertThat(figures.toNormalMs()).isEqualTo(3_500); // deadline 4000 - start 500
        assertThat(figures.maxLatenessMs()).isEqualTo(7_000);
        assertThat(figures.p99LatenessMs()).isEqualTo(7_000);
        assertThat(ledger.figures("v", "s", START, START, START + 3_500).toNormalMs())
                .as("late until the window's last deadline: not normal within it")
                .isEqualTo(-1);
    }

    @Test
    void shouldWriteEveryDocumentAndAPlotWhenTheRunEnds(@TempDir Path dir) throws Exception {
        ChaosLedger ledger = new ChaosLedger();
        life(ledger, 1, 1_000, 1_100);
        life(ledger, 2, 2_500, -1).renewed = true;

        ledger.writeCsv(dir.resolve("documents.csv"), "v", START);
        Plots.chaos(
                Map.of("v", ledger.worstLatenessPerSecond(START)),
                List.of(new ChaosBench.Window("scenario", START + 500, START + 1_500)),
                START,
                "test",
                dir.resolve("lateness.png"));

        assertThat(Files.readAllLines(dir.resolve("documents.csv")))
                .containsExactly(
                        "variant,id,deadline_ms,first_command_ms,commands,gone_ms,renewed,lateness_ms",
                        "v,1,1000,1050,1,1100,false,100",
                        "v,2,2500,,0,,true,");
        assertThat(Files.size(dir.resolve("lateness.png"))).isPositive();
    }
}
