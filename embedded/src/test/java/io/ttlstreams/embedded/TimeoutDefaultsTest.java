package io.ttlstreams.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.HierarchyTraversalMode;
import org.junit.platform.commons.support.ReflectionSupport;

/**
 * Every test of this module is bounded in time by the defaults of {@code junit-platform.properties}, so that a hung
 * broker, Connect worker or MongoDB fails the build instead of stalling it: the file sets them, and no integration
 * test ({@code *IT}, run by Failsafe) raises them with a {@link Timeout} of its own. The check reads the compiled
 * test classes, so an IT added later is covered without being listed here.
 */
class TimeoutDefaultsTest {

    private static final List<Class<? extends Annotation>> LIFECYCLE =
            List.of(BeforeAll.class, BeforeEach.class, AfterEach.class, AfterAll.class);

    @Test
    void shouldConfigureTheDefaultTimeoutsOfTestsAndLifecycleMethodsInASeparateThread() throws IOException {
        Properties defaults = junitPlatformProperties();

        assertThat(defaults).containsKeys(TimeoutDefaults.TEST, TimeoutDefaults.LIFECYCLE);
        assertThat(TimeoutDefaults.parse(defaults.getProperty(TimeoutDefaults.TEST)))
                .isPositive();
        assertThat(TimeoutDefaults.parse(defaults.getProperty(TimeoutDefaults.LIFECYCLE)))
                .isPositive();
        assertThat(defaults.getProperty(TimeoutDefaults.THREAD_MODE)).isEqualTo(ThreadMode.SEPARATE_THREAD.name());
    }

    @Test
    void shouldLetNoIntegrationTestRaiseTheDefaultTimeouts() throws Exception {
        Properties defaults = junitPlatformProperties();
        Duration test = TimeoutDefaults.parse(defaults.getProperty(TimeoutDefaults.TEST));
        Duration lifecycle = TimeoutDefaults.parse(defaults.getProperty(TimeoutDefaults.LIFECYCLE));
        List<Class<?>> integrationTests = integrationTestClasses();

        // Proves the scan reads the right directory: these exist, so an empty scan is a broken check.
        assertThat(integrationTests)
                .extracting(Class::getSimpleName)
                .contains("EmbeddedStackIT", "EmbeddedStackLifecycleIT", "EmbeddedPipelineIT");
        assertThat(integrationTests.stream()
                        .flatMap(c -> timeoutsAbove(c, test, lifecycle).stream())
                        .sorted()
                        .toList())
                .as(
                        "@Timeouts of *IT classes above the defaults (%s for tests, %s for lifecycle methods)",
                        test, lifecycle)
                .isEmpty();
    }

    @Test
    void shouldNameEveryTimeoutAboveTheDefaults() {
        Duration test = Duration.ofMinutes(1);
        Duration lifecycle = Duration.ofMinutes(2);

        assertThat(timeoutsAbove(Raising.class, test, lifecycle))
                .containsExactlyInAnyOrder(
                        name(Raising.class, "") + " @Timeout(120 SECONDS)",
                        name(Raising.class, "start") + " @Timeout(3 MINUTES)",
                        name(Raising.class, "slow") + " @Timeout(61 SECONDS)",
                        name(Raising.Inner.class, "slowNested") + " @Timeout(1 HOURS)");
        assertThat(timeoutsAbove(InheritsRaising.class, test, lifecycle))
                .as("inherited bounds are checked too")
                .contains(
                        name(InheritsRaising.class, "") + " @Timeout(120 SECONDS)",
                        name(InheritsRaising.class, "slow") + " @Timeout(61 SECONDS)");
        assertThat(timeoutsAbove(Within.class, test, lifecycle)).isEmpty();
    }

    private static Properties junitPlatformProperties() throws IOException {
        Properties properties = new Properties();
        try (InputStream in = TimeoutDefaultsTest.class.getResourceAsStream("/junit-platform.properties")) {
            assertThat(in).as("junit-platform.properties on the test classpath").isNotNull();
            properties.load(in);
        }
        return properties;
    }

    /**
     * The {@link Timeout}s of {@code testClass} (with its superclasses and {@link Nested} classes) above the
     * defaults, as {@code class#method @Timeout(value UNIT)}: on a lifecycle method above {@code lifecycle}, on a
     * class or any other method above {@code test}.
     */
    static List<String> timeoutsAbove(Class<?> testClass, Duration test, Duration lifecycle) {
        List<String> above = new ArrayList<>();
        // @Timeout is @Inherited: a superclass's bounds the subclass's tests.
        addIfAbove(above, name(testClass, ""), testClass, test);
        for (Method method : ReflectionSupport.findMethods(testClass, m -> true, HierarchyTraversalMode.TOP_DOWN)) {
            boolean isLifecycle = LIFECYCLE.stream().anyMatch(a -> AnnotationSupport.isAnnotated(method, a));
            addIfAbove(above, name(testClass, method.getName()), method, isLifecycle ? lifecycle : test);
        }
        for (Class<?> nested :
                ReflectionSupport.findNestedClasses(testClass, c -> AnnotationSupport.isAnnotated(c, Nested.class))) {
            above.addAll(timeoutsAbove(nested, test, lifecycle));
        }
        return above;
    }

    private static void addIfAbove(List<String> above, String name, AnnotatedElement element, Duration bound) {
        AnnotationSupport.findAnnotation(element, Timeout.class)
                .filter(timeout -> Duration.of(timeout.value(), timeout.unit().toChronoUnit())
                                .compareTo(bound)
                        > 0)
                .ifPresent(timeout -> above.add(name + " @Timeout(" + timeout.value() + " " + timeout.unit() + ")"));
    }

    private static String name(Class<?> testClass, String method) {
        return testClass.getName() + "#" + method;
    }

    /** The concrete top-level {@code *IT} classes next to this one, loaded without running their initialisers. */
    private static List<Class<?>> integrationTestClasses() throws URISyntaxException, IOException {
        Path root = Path.of(TimeoutDefaultsTest.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        try (Stream<Path> files = Files.walk(root)) {
            return files.map(root::relativize)
                    .map(Path::toString)
                    .filter(file -> file.endsWith("IT.class") && !file.contains("$"))
                    .map(file -> file.substring(0, file.length() - ".class".length())
                            .replace(root.getFileSystem().getSeparator(), "."))
                    .map(TimeoutDefaultsTest::load)
                    .filter(c -> !Modifier.isAbstract(c.getModifiers()))
                    .toList();
        }
    }

    private static Class<?> load(String className) {
        try {
            return Class.forName(className, false, TimeoutDefaultsTest.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new AssertionError("Compiled test class " + className + " cannot be loaded", e);
        }
    }

    // Fixtures for the check itself: private and abstract, so that no engine runs them.

    @Timeout(120)
    private abstract static class Raising {
        @BeforeAll
        @Timeout(value = 3, unit = TimeUnit.MINUTES)
        static void start() {}

        @AfterEach
        @Timeout(value = 2, unit = TimeUnit.MINUTES)
        void stop() {}

        @Test
        @Timeout(61)
        void slow() {}

        @Test
        @Timeout(60)
        void bounded() {}

        @Nested
        class Inner {
            @Test
            @Timeout(value = 1, unit = TimeUnit.HOURS)
            void slowNested() {}
        }
    }

    private abstract static class InheritsRaising extends Raising {}

    private abstract static class Within {
        @BeforeEach
        @Timeout(value = 2, unit = TimeUnit.MINUTES)
        void start() {}

        @Test
        @Timeout(value = 1, unit = TimeUnit.MINUTES)
        void test() {}

        @Test
        void unannotated() {}
    }
}
