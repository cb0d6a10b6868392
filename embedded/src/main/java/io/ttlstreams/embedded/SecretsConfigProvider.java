package io.ttlstreams.embedded;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.ConfigData;
import org.apache.kafka.common.config.provider.FileConfigProvider;

/**
 * The embedded Connect worker's {@code file} config provider: Kafka's {@link FileConfigProvider}, with the
 * production secret files ({@code /secrets/<name>.properties}, which the rendered connector configurations
 * reference) found in the worker's own secrets directory, so that those configurations run unchanged.
 *
 * <p>Parameter {@value #DIRECTORY_CONFIG}: that directory; {@code allowed.paths} should be the same.
 */
public final class SecretsConfigProvider extends FileConfigProvider {

    /** The worker's secrets directory. */
    public static final String DIRECTORY_CONFIG = "directory";
    /** Where production mounts the secret files (see {@code ConnectorConfigs}). */
    static final String PRODUCTION_DIRECTORY = "/secrets/";

    private Path directory;

    @Override
    public void configure(Map<String, ?> configs) {
        super.configure(configs);
        Object value = configs.get(DIRECTORY_CONFIG);
        if (value == null) {
            throw new IllegalArgumentException("SecretsConfigProvider needs its " + DIRECTORY_CONFIG);
        }
        directory = Path.of(value.toString());
    }

    @Override
    public ConfigData get(String path) {
        return super.get(local(path));
    }

    @Override
    public ConfigData get(String path, Set<String> keys) {
        return super.get(local(path), keys);
    }

    private String local(String path) {
        if (path != null
                && path.startsWith(PRODUCTION_DIRECTORY)
                && path.indexOf('/', PRODUCTION_DIRECTORY.length()) < 0) {
            return directory
                    .resolve(path.substring(PRODUCTION_DIRECTORY.length()))
                    .toString();
        }
        return path;
    }
}
