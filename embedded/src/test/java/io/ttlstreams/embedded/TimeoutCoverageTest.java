package io.ttlstreams.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.platform.commons.annotation.Testable;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.HierarchyTraversalMode;
import org.junit.platform.commons.support.ReflectionSupport;

/**
 * Every integration test of this module ({@code *IT}, run by Failsafe) is bounded in time, so that a hung broker,
 * Connect worker or MongoDB fails the build instead of stalling it. The check reads the compiled test classes, so
 * an IT added later is covered without being listed here.
 *
 * <p>JUnit's rules: a {@link Timeout} on a class (or a superclass, or an enclosing class of a {@link Nested} one)
 * bounds its test methods but not its lifecycle methods; {@code @BeforeAll} and the like, where the stacks start,
 * need their own.
 */
class TimeoutCoverageTest {

    private static final List<Class<? extends Annotation>> LIFECYCLE =
            List.of(BeforeAll.class, BeforeEach.class, AfterEach.class, AfterAll.class);

    @Test
    void shouldBoundEveryTestAndLifecycleMethodOfEveryIntegrationTest() throws Exception {
        List<Class<?>> integrationTests = integrationTestClasses();

        // Proves the scan reads the right directory: these exist, so an empty scan is a broken check.
        assertThat(integrationTests)
                .extracting(Class::getSimpleName)
                .contains("EmbeddedStackIT", "EmbeddedStackLifecycleIT", "EmbeddedPipelineIT");
        assertThat(integrationTests.stream()
                        .flatMap(c -> methodsWithoutTimeout(c).stream())
                        .sorted()
                        .toList())
                .as("methods of *IT classes without a @Timeout (on the method, or for test methods on the class)")
                .isEmpty();
    }

    @Test
    void shouldNameEveryMethodNoTimeoutCovers() {
        assertThat(methodsWithoutTimeout(NoTimeout.class))
                .containsExactlyInAnyOrder(
                        name(NoTimeout.class, "start") + " (@BeforeAll)",
                        name(NoTimeout.class, "test"),
                        name(NoTimeout.class, "parameterized"),
                        name(NoTimeout.Inner.class, "unboundedNested"));
        assertThat(methodsWithoutTimeout(ClassTimeout.class))
                .as("a class-level timeout does not bound lifecycle methods")
                .containsExactly(name(ClassTimeout.class, "stop") + " (@AfterEach)");
        assertThat(methodsWithoutTimeout(InheritsClassTimeout.class)).isEmpty();
    }

    /**
     * The methods of {@code testClass} (with those it inherits and those of its {@link Nested} classes) that no
     * {@link Timeout} bounds, as {@code class#method}, lifecycle methods followed by their annotation.
     */
    static List<String> methodsWithoutTimeout(Class<?> testClass) {
        return methodsWithoutTimeout(testClass, false);
    }

    private static List<String> methodsWithoutTimeout(Class<?> testClass, boolean enclosingTimeout) {
        boolean classTimeout = enclosingTimeout || AnnotationSupport.isAnnotated(testClass, Timeout.class);
        List<String> uncovered = new ArrayList<>();
        for (Method method : ReflectionSupport.findMethods(testClass, m -> true, HierarchyTraversalMode.TOP_DOWN)) {
            if (AnnotationSupport.isAnnotated(method, Timeout.class)) {
                continue;
            }
            if (AnnotationSupport.isAnnotated(method, Testable.class) && !classTimeout) {
                uncovered.add(name(testClass, method.getName()));
            }
            for (Class<? extends Annotation> lifecycle : LIFECYCLE) {
                if (AnnotationSupport.isAnnotated(method, lifecycle)) {
                    uncovered.add(name(testClass, method.getName()) + " (@" + lifecycle.getSimpleName() + ")");
                }
            }
        }
        for (Class<?> nested :
                ReflectionSupport.findNestedClasses(testClass, c -> AnnotationSupport.isAnnotated(c, Nested.class))) {
            uncovered.addAll(methodsWithoutTimeout(nested, classTimeout));
        }
        return uncovered;
    }

    private static String name(Class<?> testClass, String method) {
        return testClass.getName() + "#" + method;
    }

    /** The concrete top-level {@code *IT} classes next to this one, loaded without running their initialisers. */
    private static List<Class<?>> integrationTestClasses() throws URISyntaxException, java.io.IOException {
        Path root = Path.of(TimeoutCoverageTest.class
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
                    .map(TimeoutCoverageTest::load)
                    .filter(c -> !Modifier.isAbstract(c.getModifiers()))
                    .toList();
        }
    }

    private static Class<?> load(String className) {
        try {
            return Class.forName(className, false, TimeoutCoverageTest.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new AssertionError("Compiled test class " + className + " cannot be loaded", e);
        }
    }

    // Fixtures for the check itself: private and abstract, so that no engine runs them.

    private abstract static class NoTimeout {
        @BeforeAll
        static void start() {}

        @BeforeEach
        @Timeout(10)
        void prepare() {}

        @Test
        void test() {}

        @ParameterizedTest
        @ValueSource(ints = 1)
        void parameterized(int value) {}

        @Test
        @Timeout(10)
        void boundedTest() {}

        @Nested
        class Inner {
            @Test
            void unboundedNested() {}
        }
    }

    @Timeout(10)
    private abstract static class ClassTimeout {
        @BeforeEach
        @Timeout(10)
        void start() {}

        @AfterEach
        void stop() {}

        @Test
        void test() {}

        @Nested
        class Inner {
            @Test
            void nested() {}
        }
    }

    private abstract static class InheritsClassTimeout extends ClassTimeout {
        @Override
        @AfterEach
        @Timeout(10)
        void stop() {}

        @Test
        void another() {}
    }
}
