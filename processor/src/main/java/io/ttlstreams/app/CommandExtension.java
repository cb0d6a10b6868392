package io.ttlstreams.app;

import java.util.concurrent.Callable;

/**
 * A subcommand that another module adds to the {@code ttl-streams} command line (module {@code embedded} adds
 * {@code demo}, module {@code bench} adds {@code bench}): a picocli {@code @Command} class registered as a {@link
 * java.util.ServiceLoader service}, so that the production artifact carries none of them.
 */
public interface CommandExtension extends Callable<Integer> {}
