package io.github.redislock.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;

/**
 * Every {@code ```java} block of README.md and docs/, and every {@code <pre>{@code ...}</pre>} example
 * of the javadoc of the library and its test support, compiles against the library and the test
 * classpath, so a renamed method, a changed signature or a snippet that never compiled fails the build.
 *
 * <p>The manual keeps its snippets short, and this test fills in what they leave out:
 * <ul>
 * <li>Imports: the {@link #IMPORTS} below (the library's packages, the Spring, Reactor and test
 * annotations the snippets use); a snippet's own {@code import} lines are kept.</li>
 * <li>The application around it: each snippet is compiled inside a class extending
 * {@link SnippetScaffold}, whose fields and types ({@code locker}, {@code sku}, {@code jdbc},
 * {@code Order}, ...) a snippet may use undeclared. A snippet needing another name adds it there.</li>
 * <li>Its kind: a snippet whose first line is an annotation, a type declaration or a method header is
 * compiled as members of that class (classes become nested classes, which is why they may use the
 * scaffold's names); any other is compiled as the statements of a method. A marker comment before the
 * fence decides when that guess is wrong: {@code <!-- java: members -->} or {@code <!-- java: statements -->}.</li>
 * <li>{@code { ... }} stands for a body left out: after a parameter list (a method's, a lambda's) it compiles
 * as one that throws, so a method that returns a value compiles too, elsewhere as an empty one. A line of
 * just {@code ...} stands for statements left out and compiles as none.</li>
 * </ul>
 */
class JavaSnippetsCompileTest {

    static final List<String> IMPORTS = List.of(
            "java.lang.annotation.*", "static java.lang.annotation.ElementType.*", "static java.lang.annotation.RetentionPolicy.*",
            "java.time.*", "java.util.*", "java.util.concurrent.*",
            "io.github.redislock.*", "io.github.redislock.annotation.*", "io.github.redislock.core.RedisLocker",
            "io.github.redislock.observation.*",
            "reactor.core.publisher.Flux", "reactor.core.publisher.Mono",
            "org.springframework.beans.factory.SmartInitializingSingleton", "org.springframework.beans.factory.annotation.Autowired",
            "org.springframework.context.annotation.Bean", "org.springframework.core.annotation.AliasFor",
            "org.springframework.scheduling.annotation.Scheduled",
            "org.springframework.stereotype.Component", "org.springframework.stereotype.Service",
            "org.springframework.integration.leader.DefaultCandidate", "org.springframework.integration.support.leader.LockRegistryLeaderInitiator",
            "org.springframework.integration.support.locks.LockRegistry",
            "org.springframework.boot.test.context.SpringBootTest", "org.junit.jupiter.api.Test",
            "org.junit.jupiter.api.extension.RegisterExtension", "io.github.redislock.test.*", "io.github.redislock.testsupport.RedlockMasters",
            "static org.assertj.core.api.Assertions.assertThat",
            "org.springframework.boot.testcontainers.service.connection.ServiceConnection",
            "org.testcontainers.containers.GenericContainer", "org.testcontainers.junit.jupiter.Container",
            "org.testcontainers.junit.jupiter.Testcontainers");

    private static final String PACKAGE = "io.github.redislock.docs.snippets";
    private static final Pattern MEMBERS = Pattern.compile(
            "^(@|((public|protected|private|static|final|abstract|default)\\s+)*(class|interface|record|enum|@interface)\\s"
                    + "|[\\w<>\\[\\]?, .]+\\s+\\w+\\s*\\([^;]*\\)\\s*(throws\\s+[\\w., ]+)?\\s*\\{).*");
    private static final Pattern BODY_LEFT_OUT = Pattern.compile("\\{\\s*\\.\\.\\.\\s*}");
    private static final Pattern CALLABLE_BODY_LEFT_OUT = Pattern.compile("(\\)[^{;()]*)\\{\\s*\\.\\.\\.\\s*}");
    private static final Pattern LINE_LEFT_OUT = Pattern.compile("^\\s*\\.\\.\\.\\s*$");
    /** The main sources whose javadoc users read: the library and its test support. */
    private static final List<String> JAVADOC_SOURCES = List.of("lock-autoconfigure/src/main/java", "lock-test-support/src/main/java");

    @Test
    void everyJavaSnippetOfTheManualCompiles() throws IOException {
        List<Manual.Block> blocks = new ArrayList<>(Manual.blocks("java"));
        List<Manual.Block> javadoc = javadocExamples();
        assertThat(javadoc).as("javadoc examples found").isNotEmpty();
        blocks.addAll(javadoc);
        List<Unit> units = new ArrayList<>();
        for (Manual.Block block : blocks) {
            units.add(unit(block));
        }
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        Path classes = Files.createDirectories(Path.of("target", "doc-snippets"));
        List<String> options = List.of("-d", classes.toString(), "-classpath", System.getProperty("java.class.path"),
                "-proc:none", "-nowarn", "-encoding", "UTF-8", "--release", "17");
        boolean compiled = compiler.getTask(null, null, diagnostics, options, null, units).call();

        List<String> errors = new ArrayList<>();
        for (Diagnostic<? extends JavaFileObject> diagnostic : diagnostics.getDiagnostics()) {
            if (diagnostic.getKind() == Diagnostic.Kind.ERROR) {
                errors.add(diagnostic.getSource() instanceof Unit unit ? unit.locate(diagnostic) : diagnostic.toString());
            }
        }
        assertThat(blocks).as("java snippets found").hasSizeGreaterThan(10);
        assertThat(errors).as("snippets that do not compile (how they are compiled: JavaSnippetsCompileTest's javadoc)").isEmpty();
        assertThat(compiled).isTrue();
    }

    private static Unit unit(Manual.Block block) {
        String name = "Snippet_" + block.page().name().replaceAll("[^A-Za-z0-9]", "_") + "_" + block.line();
        List<String> imports = new ArrayList<>();
        List<Integer> bodyLines = new ArrayList<>();
        List<String> body = new ArrayList<>();
        for (int i = 0; i < block.lines().size(); i++) {
            String line = block.lines().get(i);
            if (line.startsWith("import ")) {
                imports.add(line);
            } else {
                String filled = CALLABLE_BODY_LEFT_OUT.matcher(line).replaceAll("$1{ throw null; }");
                body.add(LINE_LEFT_OUT.matcher(line).matches() ? "" : BODY_LEFT_OUT.matcher(filled).replaceAll("{ }"));
                bodyLines.add(block.line() + 1 + i);
            }
        }
        boolean members = isMembers(block, body);
        List<String> source = new ArrayList<>();
        List<Integer> pageLines = new ArrayList<>();
        source.add("package " + PACKAGE + ";");
        IMPORTS.forEach(imported -> source.add("import " + imported + ";"));
        source.addAll(imports);
        source.add("@SuppressWarnings(\"all\") class " + name + " extends " + SnippetScaffold.class.getName() + " {");
        source.add(members ? "" : "void snippet() throws Exception {");
        while (pageLines.size() < source.size()) {
            pageLines.add(block.line());
        }
        source.addAll(body);
        pageLines.addAll(bodyLines);
        source.add(members ? "}" : "}}");
        pageLines.add(block.line() + block.lines().size() + 1);
        return new Unit(name, String.join("\n", source), block, pageLines);
    }

    /** Each {@code <pre>{@code} example of {@link #JAVADOC_SOURCES}, its {@code * } margin removed. */
    static List<Manual.Block> javadocExamples() throws IOException {
        List<Manual.Block> examples = new ArrayList<>();
        for (String sources : JAVADOC_SOURCES) {
            List<Path> files;
            try (Stream<Path> walk = Files.walk(Manual.ROOT.resolve(sources))) {
                files = walk.filter(file -> file.toString().endsWith(".java")).sorted().toList();
            }
            for (Path file : files) {
                Manual.Page page = new Manual.Page(file, Files.readAllLines(file, StandardCharsets.UTF_8));
                for (int i = 0; i < page.lines().size(); i++) {
                    if (!page.lines().get(i).strip().equals("* <pre>{@code")) {
                        continue;
                    }
                    int start = i;
                    List<String> code = new ArrayList<>();
                    for (i++; i < page.lines().size() && !page.lines().get(i).strip().equals("* }</pre>"); i++) {
                        code.add(page.lines().get(i).replaceFirst("^\\s*\\* ?", ""));
                    }
                    examples.add(new Manual.Block(page, start + 1, "java", null, code));
                }
            }
        }
        return examples;
    }

    private static boolean isMembers(Manual.Block block, List<String> body) {
        if ("java: members".equals(block.marker())) {
            return true;
        }
        if ("java: statements".equals(block.marker())) {
            return false;
        }
        String first = body.stream().map(String::strip).filter(line -> !line.isEmpty() && !line.startsWith("//")).findFirst().orElse("");
        return MEMBERS.matcher(first).matches();
    }

    /** One snippet as a compilation unit, remembering which page line each of its lines came from. */
    private static final class Unit extends SimpleJavaFileObject {

        private final String source;
        private final Manual.Block block;
        private final List<Integer> pageLines;

        Unit(String name, String source, Manual.Block block, List<Integer> pageLines) {
            super(URI.create("string:///" + PACKAGE.replace('.', '/') + "/" + name + Kind.SOURCE.extension), Kind.SOURCE);
            this.source = source;
            this.block = block;
            this.pageLines = pageLines;
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return source;
        }

        String locate(Diagnostic<? extends JavaFileObject> diagnostic) {
            long line = diagnostic.getLineNumber();
            int pageLine = line >= 1 && line <= pageLines.size() ? pageLines.get((int) line - 1) : block.line();
            String code = line >= 1 && line <= pageLines.size() ? source.split("\n", -1)[(int) line - 1].strip() : "";
            return block.page().name() + ":" + pageLine + ": " + diagnostic.getMessage(Locale.ROOT) + "\n    " + code;
        }
    }
}
