package io.ttlstreams.http;

import java.io.IOException;

/**
 * What a capability registers on the {@link OperationsServer} for a path: the answer to one checked request. An
 * {@link IllegalArgumentException} is answered 400 with its message, an {@link IOException} (another instance did not
 * answer) 502.
 */
@FunctionalInterface
public interface Handler {

    /** The response to {@code request}. */
    Response answer(Request request) throws IOException, InterruptedException;
}
