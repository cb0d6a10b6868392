package io.ttlstreams.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.ttlstreams.http.OperationsServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ExpiryMetricsTest {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ExpiryMetrics metrics = new ExpiryMetrics(registry, List.of("sessions", "events"));

    @AfterEach
    void close() {
        registry.close();
    }

    private String scrape() {
        return registry.scrape(OperationsServer.PROMETHEUS_TEXT);
    }

    @Test
    void shouldExportEveryRulesMetersFromTheStart() {
        assertThat(scrape())
                .contains("ttl_deletes_emitted_total{rule=\"sessions\"} 0.0")
                .contains("ttl_deletes_emitted_total{rule=\"events\"} 0.0")
                .contains("ttl_expiry_lag_seconds_count{rule=\"events\"} 0");
        assertThat(metrics.lagSummary().count()).isZero();
        assertThat(metrics.lagSummary().p99Seconds()).isEmpty();
    }

    @Test
    void shouldKeepLagBucketsUpToADaySoThatAnOutageStillHasAQuantile() {
        metrics.emitted("sessions", 40);
        metrics.emitted("sessions", 30);
        metrics.emitted("sessions", Duration.ofMinutes(90).toMillis()); // after an outage

        String scrape = scrape();
        assertThat(scrape)
                .contains("ttl_deletes_emitted_total{rule=\"sessions\"} 3.0")
                .contains("ttl_expiry_lag_seconds_bucket{rule=\"sessions\",le=\"0.05\"} 2")
                .contains("ttl_expiry_lag_seconds_bucket{rule=\"sessions\",le=\"3600.0\"} 2")
                .contains("ttl_expiry_lag_seconds_bucket{rule=\"sessions\",le=\"7200.0\"} 3")
                .contains("ttl_expiry_lag_seconds_bucket{rule=\"sessions\",le=\"86400.0\"} 3")
                .contains("ttl_expiry_lag_seconds_count{rule=\"sessions\"} 3");
        ExpiryMetrics.LagSummary lag = metrics.lagSummary();
        assertThat(lag.count()).isEqualTo(3);
        assertThat(lag.p50Seconds()).hasValue(0.05);
        assertThat(lag.p99Seconds()).as("the 90-minute lag's bucket").hasValue(7200.0);
        assertThat(lag.maxSeconds()).isEqualTo(5400.0);
        assertThat(metrics.deletesEmitted()).isEqualTo(3.0);
    }

    @Test
    void shouldMergeRulesAndLearnRulesItWasNotToldOf() {
        metrics.emitted("events", 5);
        metrics.emitted("added-later", 20);

        assertThat(metrics.lagSummary().count()).isEqualTo(2);
        assertThat(metrics.lagSummary().p50Seconds()).hasValue(0.01);
        assertThat(metrics.lagSummary().p99Seconds()).hasValue(0.025);
        assertThat(scrape()).contains("ttl_deletes_emitted_total{rule=\"added-later\"} 1.0");
    }

    @Test
    void shouldCountConfirmationsWithTheirLagAndTheDocumentsGivenUpOn() {
        metrics.emitted("sessions", 40);
        metrics.confirmed("sessions", 180);
        metrics.emitted("sessions", 30);
        metrics.unconfirmed("sessions");

        assertThat(scrape())
                .contains("ttl_deletes_confirmed_total{rule=\"sessions\"} 1.0")
                .contains("ttl_confirmed_lag_seconds_bucket{rule=\"sessions\",le=\"0.1\"} 0")
                .contains("ttl_confirmed_lag_seconds_bucket{rule=\"sessions\",le=\"0.25\"} 1")
                .contains("ttl_deletes_unconfirmed_total{rule=\"sessions\"} 1.0")
                .contains("ttl_deletes_unconfirmed_total{rule=\"events\"} 0.0");
        assertThat(metrics.lagSummary().count())
                .as("the expiry lag counts emissions only")
                .isEqualTo(2);
        assertThat(metrics.deletesConfirmed()).isEqualTo(1.0);
        assertThat(metrics.deletesUnconfirmed()).isEqualTo(1.0);
    }
}
