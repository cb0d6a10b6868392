package io.ttlstreams.contract;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * Percent-encoding of one URI path segment or query value, and its reverse, the one codec for every HTTP path this
 * project writes or reads (the processor's endpoints, Kafka Connect's REST API).
 *
 * <p>A space is {@code %20} and a {@code +} is a plus sign: {@code +} means a space only in HTML forms, and the
 * extended JSON of a document key may hold one. The JDK's {@link URLEncoder} and {@link URLDecoder} follow the forms'
 * convention, so both are corrected here rather than at every call.
 */
public final class PercentEncoding {

    private PercentEncoding() {}

    /** {@code text} as a path segment or query value: every byte but letters, digits and {@code .-*_} escaped. */
    public static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /**
     * The text that {@code raw}, a percent-encoded segment or value, stands for; a {@code +} stays a {@code +}.
     *
     * @throws IllegalArgumentException on a malformed escape
     */
    public static String decode(String raw) {
        return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
    }
}
