package io.ttlstreams.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Figures 1 and 4 of a bench run: the punctuation's cost against a full scan, and the state it keeps. */
record PunctuationFigures(BenchResults results, PunctuationBench punctuation, int[] sizes) {

    /** 10% of one core at a 100 ms interval. */
    private static final double BUDGET_MS = 10.0;

    /** Figure 1; returns the speedup at D=100 and the largest N both approaches ran. */
    double cost() {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (PunctuationBench.Row row : punctuation.rows) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("approach", row.approach());
            m.put("n", row.n());
            m.put("due", row.due());
            m.put("median_ms", row.medianMs());
            m.put("min_ms", Stats.min(row.samplesMs()));
            m.put("max_ms", Stats.max(row.samplesMs()));
            m.put("warmups", row.warmups());
            m.put("reps", row.samplesMs().length);
            m.put("complete", row.complete());
            m.put("interval_ms", PunctuationBench.INTERVAL_MS);
            rows.add(m);
        }
        results.section(
                "1. Punctuation cost (ms per punctuation, interval " + PunctuationBench.INTERVAL_MS
                        + " ms; N future entries + D due; complete=false: the budget cut a run short)",
                "punctuation",
                rows,
                List.of("approach", "n", "due", "median_ms", "min_ms", "max_ms", "reps", "complete"));
        int[] scanSizes = punctuation.fullScanSizes();
        int common = scanSizes[scanSizes.length - 1];
        int largest = sizes[sizes.length - 1];
        double speedup =
                median(PunctuationBench.FULL_SCAN, common, 100) / median(PunctuationBench.TTL_STREAMS, common, 100);
        results.stdout.printf(
                Locale.ROOT,
                "Speedup over the full scan at D=100, N=%d: %.1fx (target >= 100x at N=1M)%n",
                common,
                speedup);
        Map<String, Double> growth = new LinkedHashMap<>();
        for (int due : BenchMain.DUES) {
            double g = median(PunctuationBench.TTL_STREAMS, largest, due)
                    / median(PunctuationBench.TTL_STREAMS, sizes[0], due);
            growth.put("D=" + due, g);
            results.stdout.printf(
                    Locale.ROOT,
                    "ttl-streams cost growth N=%d -> N=%d at D=%d: %.2fx (%s the 2x target)%n",
                    sizes[0],
                    largest,
                    due,
                    g,
                    g <= 2 ? "within" : "OUTSIDE");
        }
        Map<String, String> within = new LinkedHashMap<>();
        within.put(PunctuationBench.TTL_STREAMS, largestWithinBudget(PunctuationBench.TTL_STREAMS, sizes));
        within.put(PunctuationBench.FULL_SCAN, largestWithinBudget(PunctuationBench.FULL_SCAN, scanSizes));
        within.forEach((approach, text) -> results.stdout.printf(
                Locale.ROOT,
                "Largest N with <= 10 ms per punctuation at D=100 (a 100 ms interval within 10%% of a core),"
                        + " %s: %s%n",
                approach,
                text));
        results.summary.put("punctuation_speedup_d100", speedup);
        results.summary.put("punctuation_speedup_n", common);
        results.summary.put("punctuation_largest_n", largest);
        results.summary.put("ttl_streams_cost_growth_smallest_to_largest_n", growth);
        results.summary.put("largest_n_within_10ms_d100", within);
        return speedup;
    }

    private String largestWithinBudget(String approach, int[] sizes) {
        int best = -1;
        for (int n : sizes) {
            if (median(approach, n, 100) <= BUDGET_MS) {
                best = n;
            }
        }
        int largest = sizes[sizes.length - 1];
        double atLargest = median(approach, largest, 100);
        if (best == largest) {
            return ">= " + best + " (largest N measured; " + Table.text(atLargest) + " ms at N=" + best + ")";
        }
        long extrapolated = (long) (largest * BUDGET_MS / atLargest);
        return (best < 0 ? "< " + sizes[0] : String.valueOf(best)) + " measured; ~" + extrapolated
                + " by linear extrapolation from N=" + largest;
    }

    private double median(String approach, int n, int due) {
        return punctuation.rows.stream()
                .filter(r -> r.approach().equals(approach) && r.n() == n && r.due() == due)
                .findFirst()
                .orElseThrow()
                .medianMs();
    }

    /** Figure 4. */
    void state() {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (PunctuationBench.StateRow row : punctuation.stateRows) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("approach", row.approach());
            m.put("n", row.n());
            m.put("prefill_ms", row.prefillMs());
            m.put("raw_bytes", row.rawBytes());
            m.put("compacted_bytes", row.compactedBytes());
            m.put("raw_bytes_per_doc", (double) row.rawBytes() / row.n());
            m.put("compacted_bytes_per_doc", (double) row.compactedBytes() / row.n());
            m.put("heap_used_mb", row.heapUsedBytes() < 0 ? null : row.heapUsedBytes() / 1048576.0);
            rows.add(m);
        }
        results.section(
                "4. State size (RocksDB store directories; compacted = after a full compactRange) and heap (JVM"
                        + " heap after GC with the driver open at each approach's largest N; RocksDB is off-heap)",
                "state",
                rows,
                List.of("approach", "n", "prefill_ms", "raw_bytes_per_doc", "compacted_bytes_per_doc", "heap_used_mb"));
    }
}
