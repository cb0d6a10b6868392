package io.ttlstreams.query;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse.BodySubscriber;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Reads an HTTP answer's body into memory up to a limit: one that grows past it is refused as soon as it does, and the
 * rest is never read, so that whoever answers cannot fill the heap. Signals arrive one at a time (Reactive Streams),
 * hence no locking.
 */
final class BoundedBody implements BodySubscriber<byte[]> {

    private final int limit;
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();
    private final CompletableFuture<byte[]> body = new CompletableFuture<>();
    private Flow.Subscription subscription;

    BoundedBody(int limit) {
        this.limit = limit;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        this.subscription = subscription;
        subscription.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
        for (ByteBuffer buffer : buffers) {
            // Buffers already on their way may still arrive after the refusal.
            if (body.isDone()) {
                return;
            }
            if (buffer.remaining() > limit - received.size()) {
                subscription.cancel();
                body.completeExceptionally(new IOException("the answer exceeds the limit of " + limit + " bytes"));
                return;
            }
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);
            received.write(bytes, 0, bytes.length);
        }
    }

    @Override
    public void onError(Throwable failure) {
        body.completeExceptionally(failure);
    }

    @Override
    public void onComplete() {
        body.complete(received.toByteArray());
    }

    @Override
    public CompletionStage<byte[]> getBody() {
        return body;
    }
}
