package io.ttlstreams.http;

import io.ttlstreams.contract.PercentEncoding;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A GET request as the endpoints see it; its path segments and query values are decoded by {@link PercentEncoding}.
 *
 * @param rawPath the path, still percent-encoded, so that an encoded '/' inside a segment stays inside it
 * @param rawQuery the query string, still percent-encoded; empty for none
 * @param forwarded whether another instance forwarded it (header {@value #FORWARDED_HEADER}), so that it is answered
 *     here or not at all, never forwarded again
 */
public record Request(String rawPath, String rawQuery, boolean forwarded) {

    /** Marks a request one instance forwards to another. */
    public static final String FORWARDED_HEADER = "X-TTL-Streams-Forwarded";

    /**
     * The decoded path segments after {@code prefix}.
     *
     * @throws IllegalArgumentException when the raw path does not start with it (a path routed there once normalized,
     *     such as {@code /v1/documents} alone or {@code /v1/x/../documents/...})
     */
    public List<String> segmentsAfter(String prefix) {
        if (!rawPath.startsWith(prefix)) {
            throw new IllegalArgumentException("The path must start with " + prefix);
        }
        List<String> segments = new ArrayList<>();
        for (String raw : rawPath.substring(prefix.length()).split("/", -1)) {
            segments.add(PercentEncoding.decode(raw));
        }
        return segments;
    }

    /** The decoded query parameters; the first value of a repeated one. */
    public Map<String, String> query() {
        Map<String, String> parameters = new LinkedHashMap<>();
        if (rawQuery.isEmpty()) {
            return parameters;
        }
        for (String pair : rawQuery.split("&")) {
            int equals = pair.indexOf('=');
            String name = PercentEncoding.decode(equals < 0 ? pair : pair.substring(0, equals));
            String value = equals < 0 ? "" : PercentEncoding.decode(pair.substring(equals + 1));
            parameters.putIfAbsent(name, value);
        }
        return parameters;
    }

    /** A query parameter; empty when absent or blank. */
    public Optional<String> parameter(String name) {
        return Optional.ofNullable(query().get(name)).filter(value -> !value.isBlank());
    }

    /** The path and query as received, for forwarding. */
    public String pathAndQuery() {
        return rawQuery.isEmpty() ? rawPath : rawPath + "?" + rawQuery;
    }
}
