"""suggest_rule writes the construct the request says has one part and lacks another (lacking.py, issue 29): the
element or declaration by the parts the request names, by its list of them, without the part it says is needed.
Real ast-grep, real files in a temp workspace; each top candidate judged by plain ast-grep on code the examples do
not show."""

from __future__ import annotations

import pytest

from sgtools.engine.process import Engine
from sgtools.project.workspace import Workspace
from tests.test_suggest_shapes import Case, check_case

CASES = {
    "an element the request lists, with the attribute it names, without the one it needs": Case(
        "`<img>` and `<svg>` with an `onClick` and no `role`: also a `<canvas>` the request lists, self-closing or "
        "not, whatever else it writes; not one with a role, a `<button>`, a component, or one without `onClick`",
        "tsx",
        ["<img src={logo} onClick={goHome} />", "<svg viewBox=\"0 0 10 10\" onClick={close}><path d={p} /></svg>"],
        ["<img src={logo} role=\"link\" onClick={goHome} />", "<img src={logo} alt=\"logo\" />"],
        ["<canvas onClick={draw} width={300} />", "<svg onClick={() => setOpen(false)}>{icon}</svg>",
         "<img className=\"thumb\" src={t.url} onClick={() => zoom(t)} />"],
        ["<canvas role=\"img\" onClick={draw} />", "<button onClick={zoom}>Zoom</button>",
         "<img src={x} alt=\"\" />", "<Logo onClick={goHome} />"],
        request="an <img>, <svg> or <canvas> with an onClick must also have a role, or screen readers skip it",
    ),
    "an attribute written alone is a flag, set when written alone or true": Case(
        "`allowFullScreen` and `sandbox` are written alone: also `={true}`, and `={false}` is not set",
        "tsx",
        ["<iframe src={page} allowFullScreen />", "<embed src=\"/intro.swf\" allowFullScreen />"],
        ["<iframe src={page} allowFullScreen sandbox />", "<embed src=\"/intro.swf\" />"],
        ["<iframe allowFullScreen={true} src={page}></iframe>", "<embed sandbox={false} allowFullScreen src={x} />"],
        ["<iframe src={page} allowFullScreen={false} />", "<iframe allowFullScreen sandbox={true} src={u} />",
         "<Frame allowFullScreen src={u} />"],
        request="an <iframe> or <embed> with allowFullScreen must also be sandboxed with sandbox",
    ),
    "a declaration with an annotation the request lists, without the modifier it needs": Case(
        "Retrofit methods annotated `@GET` or `@POST` and not `suspend`: also `@PUT` and `@DELETE`, which the "
        "request lists, one function among others; not a `suspend` one, nor a function without such an annotation",
        "kotlin",
        ["interface Api {\n    @GET(\"users\")\n    fun users(): List<User>\n}",
         "interface Api {\n    @POST(\"login\")\n    fun login(@Body body: Login): Token\n}"],
        ["interface Api {\n    @GET(\"users\")\n    suspend fun users(): List<User>\n}",
         "interface Api {\n    @POST(\"login\")\n    suspend fun login(@Body body: Login): Token\n}"],
        ["interface Api {\n    @DELETE(\"users/{id}\")\n    fun remove(@Path(\"id\") id: Long)\n}",
         "interface Api {\n    @PUT(\"users/{id}\")\n    fun update(@Path(\"id\") id: Long, @Body u: User): User\n\n"
         "    @GET(\"me\")\n    suspend fun me(): User\n}"],
        ["interface Api {\n    @DELETE(\"users/{id}\")\n    suspend fun remove(@Path(\"id\") id: Long)\n}",
         "class Repo(private val api: Api) {\n    fun users(): List<User> = runBlocking { api.users() }\n}",
         "interface Api {\n    @Headers(\"Cache-Control: no-cache\")\n    fun raw(): Call<User>\n}"],
        request="Retrofit service methods (@GET, @POST, @PUT, @DELETE) must be suspend, a blocking call freezes the UI",
    ),
    "the parts every valid one writes together are one need: some of them do not meet it": Case(
        "`@ManyToMany` without `fetch = FetchType.LAZY`: also one that says `fetch = FetchType.EAGER`, which writes "
        "`fetch` and `FetchType` but not the value; not one with the value, its type's package path written out",
        "java",
        ["class Post {\n    @ManyToMany\n    private Set<Tag> tags;\n}",
         "class Course {\n    @ManyToMany(mappedBy = \"courses\")\n    private Set<Student> students;\n}"],
        ["class Post {\n    @ManyToMany(fetch = FetchType.LAZY)\n    private Set<Tag> tags;\n}",
         "class Course {\n    @OneToMany(mappedBy = \"course\")\n    private List<Lesson> lessons;\n}"],
        ["class User {\n    @ManyToMany(fetch = FetchType.EAGER)\n    @JoinTable(name = \"user_roles\")\n"
         "    private Set<Role> roles;\n}",
         "class Book {\n    @Id\n    private Long id;\n\n    @ManyToMany(cascade = CascadeType.PERSIST)\n"
         "    private List<Author> authors;\n}"],
        ["class User {\n    @ManyToMany(fetch = jakarta.persistence.FetchType.LAZY, cascade = CascadeType.ALL)\n"
         "    private Set<Role> roles;\n}",
         "class Book {\n    @ManyToOne\n    private Shelf shelf;\n}"],
        request="@ManyToMany must say fetch = FetchType.LAZY explicitly",
    ),
    "an annotation by its name, also written with its qualifier": Case(
        "`@Column` or `@JoinColumn` without `nullable`: also `@jakarta.persistence.Column`; not one that says "
        "`nullable`, however qualified, nor another annotation",
        "java",
        ["class User {\n    @Column(name = \"email\")\n    private String email;\n}",
         "class Pet {\n    @JoinColumn(name = \"owner_id\")\n    private User owner;\n}"],
        ["class User {\n    @Column(name = \"email\", nullable = false)\n    private String email;\n}",
         "class Pet {\n    @JoinColumn(name = \"owner_id\", nullable = true)\n    private User owner;\n}"],
        ["class Book {\n    @jakarta.persistence.Column(length = 80)\n    private String title;\n}",
         "class Member {\n    @JoinColumn(name = \"team_id\", referencedColumnName = \"id\")\n"
         "    private Team team;\n}"],
        ["class Book {\n    @jakarta.persistence.Column(nullable = false, length = 80)\n"
         "    private String title;\n}",
         "class Book {\n    @Id\n    @GeneratedValue\n    private Long id;\n}"],
        request="every @Column and @JoinColumn must say nullable, the schema should not rely on the default",
    ),
    "a pattern by the key it takes, beside the call the request names, without the key it needs": Case(
        "`{ mutate }` from `useMutation` without `error`: also `{ mutate: remove }` and a pattern over lines; not one "
        "taking `error` under another name, nor the same pattern from another hook the request does not name",
        "tsx",
        ["const { mutate } = useMutation(saveUser);",
         "const { mutate, isLoading } = useMutation(deletePost, { onSuccess });"],
        ["const { mutate, error } = useMutation(saveUser);", "const { data, loading } = useQuery(GET_USER);"],
        ["const { mutate: remove } = useMutation(deletePost);",
         "const {\n  mutateAsync,\n  mutate,\n} = useMutation(upload);"],
        ["const { mutate, error: uploadError } = useMutation(upload);", "const { mutate } = useDebounced(save);"],
        request="when you destructure useMutation, take error as well and show it",
    ),
    "two attributes needed together, not the same words written inside another attribute's value": Case(
        "`<video>` needs both `width` and `height` as attributes: `width` and `height` keys of its `style` are no "
        "such attributes, and one of the two alone does not meet it (the valid ones write them among other "
        "attributes, where an invalid one writes `style`)",
        "tsx",
        ["<video src={clip} style={{ width: 640, height: 360 }} />", "<video poster=\"intro.jpg\" />"],
        ["<video src={clip} width={640} height={360} style={{ width: '100%' }} />",
         "<video poster=\"intro.jpg\" width={w} height={h} />"],
        ["<video controls src={a} width={320} />", "<video style={{ height: 200, width: 300 }} autoPlay />",
         "<video height={180}>{tracks}</video>"],
        ["<video height={180} width={320} controls />", "<audio src={a} />",
         "<video width={w} muted height={h} style={{ height: 'auto' }} />"],
        request="a <video> needs width and height attributes, sizing it only with CSS makes the page jump",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_construct_without_the_part_the_request_needs(ws: Workspace, engine: Engine, name: str) -> None:
    check_case(ws, engine, CASES[name])
