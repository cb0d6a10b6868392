package io.ttlstreams.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.contract.PercentEncoding;
import org.junit.jupiter.api.Test;

class RequestTest {

    @Test
    void shouldDecodeEachSegmentOnItsOwnSoThatAnEncodedSlashStaysInItsKey() {
        Request request = new Request("/v1/documents/app.sessions/%7B%22_id%22%3A%20%22a%2Fb+c%22%7D", "", false);

        assertThat(request.segmentsAfter("/v1/documents/")).containsExactly("app.sessions", "{\"_id\": \"a/b+c\"}");
    }

    @Test
    void shouldReadQueryParametersDecodedAndIgnoreBlankOnes() {
        Request request =
                new Request("/v1/schedule", "bucket=5m&from=2026-01-01T00%3A00%3A00Z&namespace=&bucket=1h", false);

        assertThat(request.parameter("bucket")).hasValue("5m");
        assertThat(request.parameter("from")).hasValue("2026-01-01T00:00:00Z");
        assertThat(request.parameter("namespace")).isEmpty();
        assertThat(request.pathAndQuery()).startsWith("/v1/schedule?bucket=5m&");
    }

    @Test
    void shouldEncodeAQueryValueThatDecodesBackWhole() {
        String namespace = "app.user sessions&x=1#+%";
        Request request =
                new Request("/v1/schedule", "namespace=" + PercentEncoding.encode(namespace) + "&bucket=1m", false);

        assertThat(request.parameter("namespace")).hasValue(namespace);
        assertThat(request.parameter("bucket")).hasValue("1m");
    }
}
