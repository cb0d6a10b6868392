package io.ttlstreams.http;

import java.nio.charset.StandardCharsets;

/**
 * What an endpoint answers.
 *
 * @param status the HTTP status code
 * @param contentType the body's media type
 * @param body the body
 */
public record Response(int status, String contentType, byte[] body) {

    /** The media type of JSON bodies. */
    public static final String JSON = "application/json";

    /** A JSON body written by {@link Json}. */
    public static Response json(int status, Object body) {
        return new Response(status, JSON, (Json.write(body) + "\n").getBytes(StandardCharsets.UTF_8));
    }

    /** A JSON error body: {@code {"error": message}}. */
    public static Response error(int status, String message) {
        return json(status, new Error(message));
    }

    /** The body of every error answer. */
    private record Error(String error) {}

    /** The body as UTF-8 text. */
    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }
}
