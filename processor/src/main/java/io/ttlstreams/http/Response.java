package io.ttlstreams.http;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * What an endpoint answers.
 *
 * @param status the HTTP status code
 * @param contentType the body's media type
 * @param body the body
 */
record Response(int status, String contentType, byte[] body) {

    static final String JSON = "application/json";

    /** A JSON body written by {@link Json}. */
    static Response json(int status, Object body) {
        return new Response(status, JSON, (Json.write(body) + "\n").getBytes(StandardCharsets.UTF_8));
    }

    /** A JSON error body: {@code {"error": message}}. */
    static Response error(int status, String message) {
        return json(status, Map.of("error", message));
    }

    String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }
}
