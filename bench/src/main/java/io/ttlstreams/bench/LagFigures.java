package io.ttlstreams.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Figures 2 and 6 of a bench run: the expiry lag the punctuation interval makes, and the lag end to end.
 *
 * @param e2eLag the end-to-end run; null in quick mode
 */
record LagFigures(BenchResults results, LagBench lag, EndToEndLagBench e2eLag) {

    private static final double TARGET_E2E_P99_MS = 2_000;

    /** Figure 2. */
    void simulated() {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (LagBench.Row row : lag.rows) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("interval_ms", row.intervalMs());
            m.put("rate_per_second", row.ratePerSecond());
            m.put("emitted", row.emitted());
            m.put("p50_ms", row.p50Ms());
            m.put("p99_ms", row.p99Ms());
            m.put("max_ms", row.maxMs());
            rows.add(m);
        }
        results.section(
                "2. Expiry lag, deadlines due at " + BenchMain.LAG_RATE
                        + "/s, simulated wall clock advanced in interval"
                        + " steps (the punctuation granularity, not processing delay)",
                "lag",
                rows,
                List.of("interval_ms", "emitted", "p50_ms", "p99_ms", "max_ms"));
        results.summary.put(
                "lag_p99_ms_at_100ms",
                lag.rows.stream()
                        .filter(r -> r.intervalMs() == 100)
                        .findFirst()
                        .map(LagBench.Row::p99Ms)
                        .orElse(Double.NaN));
    }

    /** Figure 6 (full mode). */
    void endToEnd() {
        if (e2eLag == null) {
            results.stdout.println();
            results.stdout.println("6. End-to-end expiry lag: full mode only (it starts the whole embedded stack)");
            results.dropFile("e2e-lag.csv");
            results.summary.put("e2e_lag_p99_ms", null);
            return;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("rate_per_second", e2eLag.rate);
        m.put("seconds", e2eLag.seconds);
        m.put("lead_ms", e2eLag.leadMs);
        m.put("inserted", e2eLag.inserted);
        m.put("early", e2eLag.early);
        m.put("missing", e2eLag.missing);
        m.put("p50_ms", e2eLag.p(50));
        m.put("p99_ms", e2eLag.p(99));
        m.put("max_ms", e2eLag.max());
        m.put("stack_start_seconds", e2eLag.stackStartSeconds);
        results.section(
                "6. End-to-end expiry lag through the embedded pipeline (MongoDB stand-in, connectors, broker,"
                        + " processor defaults); lag = delete seen on a change stream - deadline",
                "e2e-lag",
                List.of(m),
                List.of("rate_per_second", "seconds", "inserted", "early", "missing", "p50_ms", "p99_ms", "max_ms"));
        results.stdout.printf(
                Locale.ROOT,
                "p99 target <= %.0f ms: %s%n",
                TARGET_E2E_P99_MS,
                BenchResults.verdict(e2eLag.p(99) <= TARGET_E2E_P99_MS && e2eLag.missing == 0 && e2eLag.early == 0));
        results.summary.put("e2e_lag_p99_ms", e2eLag.p(99));
    }
}
