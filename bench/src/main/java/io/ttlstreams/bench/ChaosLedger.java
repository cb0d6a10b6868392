package io.ttlstreams.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every document of a chaos run: its deadline, when its first delete command was committed, how many commands it got,
 * when its delete reached the bench, and whether it was renewed (its deadline moved an hour on before it came due);
 * and the figures of a time window of the run, computed from them. Times are epoch milliseconds.
 */
final class ChaosLedger {

    /** A lateness at or under this counts as normal again after a disturbance. */
    static final long NORMAL_LATENESS_MS = 1_000;

    /** One document's life; -1 for what has not happened. */
    static final class Life {
        final long id;
        final long deadline;
        volatile boolean renewed;
        volatile long firstCommand = -1;
        volatile int commands;
        volatile long gone = -1;

        Life(long id, long deadline) {
            this.id = id;
            this.deadline = deadline;
        }

        long lateness() {
            return gone < 0 ? -1 : gone - deadline;
        }
    }

    /**
     * The figures of one disturbance: documents due from its start to its end and {@link ChaosCommand#SETTLE_MS} on
     * (a disturbance's effects, a rebalance or a session expiring, come after the act), and what happened to them.
     *
     * @param early          deleted, or commanded, before their deadline (goal 0)
     * @param missed         neither renewed nor deleted by the end of the run (goal 0)
     * @param renewedDeleted renewed and deleted all the same (goal 0)
     * @param commandsPerDocument delete commands per deleted document (above 1: duplicates, harmless)
     * @param maxLatenessMs  the worst lateness of a deadline inside the disturbance
     * @param p99LatenessMs  its 99th percentile
     * @param toNormalMs     from the disturbance's start to the first deadline after which every deletion was within
     *                       {@link #NORMAL_LATENESS_MS} again; -1 if never within the window
     */
    record Figures(
            String variant,
            String scenario,
            long startMs,
            long endMs,
            int documents,
            int early,
            int missed,
            int renewedDeleted,
            double commandsPerDocument,
            long maxLatenessMs,
            long p99LatenessMs,
            long toNormalMs) {}

    private final Map<Long, Life> lives = new ConcurrentHashMap<>();

    Life add(long id, long deadline) {
        Life life = new Life(id, deadline);
        lives.put(id, life);
        return life;
    }

    Life get(long id) {
        return lives.get(id);
    }

    int size() {
        return lives.size();
    }

    /** Documents neither renewed nor gone. */
    long pending() {
        return lives.values().stream().filter(l -> !l.renewed && l.gone < 0).count();
    }

    long lastDeadline() {
        return lives.values().stream().mapToLong(l -> l.deadline).max().orElse(0);
    }

    /** The figures of the documents due in {@code [from, to)}. */
    Figures figures(String variant, String scenario, long runStart, long from, long to) {
        List<Life> due = lives.values().stream()
                .filter(l -> l.deadline >= from && l.deadline < to)
                .sorted((a, b) -> Long.compare(a.deadline, b.deadline))
                .toList();
        int early = 0;
        int missed = 0;
        int renewedDeleted = 0;
        long commands = 0;
        int deleted = 0;
        List<Long> inside = new ArrayList<>();
        for (Life life : due) {
            if (life.gone >= 0 && life.gone < life.deadline
                    || life.firstCommand >= 0 && life.firstCommand < life.deadline && !life.renewed) {
                early++;
            }
            if (!life.renewed && life.gone < 0) {
                missed++;
            }
            if (life.renewed && life.gone >= 0) {
                renewedDeleted++;
            }
            if (!life.renewed && life.gone >= 0) {
                deleted++;
                commands += life.commands;
                inside.add(life.lateness());
            }
        }
        long[] sorted = inside.stream().mapToLong(Long::longValue).sorted().toArray();
        long toNormal = -1;
        for (int i = due.size() - 1; i >= 0; i--) {
            Life life = due.get(i);
            if (!life.renewed && (life.gone < 0 || life.lateness() > NORMAL_LATENESS_MS)) {
                toNormal = i == due.size() - 1 ? -1 : Math.max(0, due.get(i + 1).deadline - from);
                break;
            }
            toNormal = 0;
        }
        return new Figures(
                variant,
                scenario,
                from - runStart,
                to - runStart,
                due.size(),
                early,
                missed,
                renewedDeleted,
                deleted == 0 ? 0 : (double) commands / deleted,
                sorted.length == 0 ? 0 : sorted[sorted.length - 1],
                sorted.length == 0 ? 0 : sorted[(int) Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)],
                toNormal);
    }

    /** Every document as a CSV row, times relative to {@code runStart}. */
    void writeCsv(Path file, String variant, long runStart) {
        StringBuilder csv =
                new StringBuilder("variant,id,deadline_ms,first_command_ms,commands,gone_ms,renewed,lateness_ms\n");
        lives.values().stream()
                .sorted((a, b) -> Long.compare(a.id, b.id))
                .forEach(l -> csv.append(String.format(
                        Locale.ROOT,
                        "%s,%d,%d,%s,%d,%s,%b,%s%n",
                        variant,
                        l.id,
                        l.deadline - runStart,
                        l.firstCommand < 0 ? "" : Long.toString(l.firstCommand - runStart),
                        l.commands,
                        l.gone < 0 ? "" : Long.toString(l.gone - runStart),
                        l.renewed,
                        l.gone < 0 ? "" : Long.toString(l.lateness()))));
        try {
            Files.writeString(file, csv);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** (deadline s after the start, the worst lateness of that second in ms) of deleted, not renewed documents. */
    double[][] worstLatenessPerSecond(long runStart) {
        Map<Long, Long> worst = new java.util.TreeMap<>();
        lives.values().stream()
                .filter(l -> !l.renewed && l.gone >= 0)
                .forEach(l -> worst.merge((l.deadline - runStart) / 1000, l.lateness(), Math::max));
        double[][] series = new double[2][worst.size()];
        int i = 0;
        for (Map.Entry<Long, Long> entry : worst.entrySet()) {
            series[0][i] = entry.getKey();
            series[1][i] = entry.getValue();
            i++;
        }
        return series;
    }
}
