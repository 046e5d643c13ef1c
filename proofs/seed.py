r"""Verbatim LaTeX fragments of the seed (``../shared/seed/above-threshold.txt``).

Every string here is copied character for character from the seed's LaTeX;
``tests/test_proofs.py`` checks that each occurs in the seed.  A claim's
statement is built from these fragments and the relation the seed writes
between them (for a chained display, one link ``a &= b`` at a time).
"""

from __future__ import annotations

from pathlib import Path

# --- locating the seed ------------------------------------------------------------------------------
_ROOT = Path(__file__).resolve().parent.parent


def seed_path() -> Path | None:
    """The seed file: ``../shared/seed/above-threshold.txt`` beside the project (None if absent)."""
    for cand in (_ROOT.parent / "shared" / "seed" / "above-threshold.txt", Path("/work/shared/seed/above-threshold.txt")):
        if cand.is_file():
            return cand
    return None


def seed_text() -> str | None:
    p = seed_path()
    return None if p is None else p.read_text(encoding="utf-8")


# --- Mechanism One ------------------------------------------------------------------------------------
LAPLACE_DENSITY = r"p_b(x) = \frac{1}{2b}\exp\left(-\frac{|x|}{b}\right)."
M1_Z = r"Z \sim \mathcal{Lap}(3 \Delta / \epsilon)"
M1_X = r"X_i \sim \mathcal{Lap}( 3 \Delta / \epsilon)"
NOISE_NEEDED = r"Note that it is necessary to add noise to tt, to obtain t^\hat{t}."
EXAMPLE_ASSUME = r"\mathcal{A} (D) = \mathcal{A} (D') = \underbrace{\top \ldots \top}_{ n \text{ occurrences} } \bot"
EXAMPLE_QUERIES = r"Assume further that t=0t = 0, qi(D)=Δq_i(D) = \Delta and qi(D′)=0q_i(D') = 0 for all i∈Ni \in \mathbb{N}. Then"
EXAMPLE_D_LHS = r"\Pr[ \mathcal{A} (D) = \underbrace{\top \ldots \top}_{ n \text{ occurrences} } \bot ]"
EXAMPLE_D_RHS = r"\left( \frac{1}{2} \right)^{n + 1} \exp \left( - \frac{\epsilon \cdot n }{3} \right) \left( 1 - \exp \left( - \frac{\epsilon}{3} \right)\right)."
EXAMPLE_DP_LHS = r"\Pr[ \mathcal{A} (D') = \underbrace{\top \ldots \top}_{ n \text{ occurrences} } \bot ]"
EXAMPLE_DP_RHS = r"\left( \frac{1}{2} \right)^{n + 1}. \end{align*}"
S_I = r"s_i \doteq \underbrace{\top \ldots \top}_{ i - 1 \text{ occurrences} } \bot"
THEOREM = r"e^{-\epsilon} \le \frac{\Pr[ \mathcal{A}(D) = s_i ]}{\Pr[ \mathcal{A}(D') = s_i ]} \le e^{\epsilon}."

# --- Proofs 1 and 2 (shared opening) ------------------------------------------------------------------
M_DEF = r"M(D, \vec x_{i - 1}) = \max_{j \in [i - 1]} \Big( q_j(D) + x_j \Big)."
EVENT = r"M(D, \vec X_{i - 1}) < \hat t \le \hat q_i(D)."
EVENT_INTRO = r"the event A(D)=si\mathcal{A}(D) = s_i happens if and only if"
COND_D = r"\Pr \big[ \mathcal{A}(D) = s_i \Vert \vec X_{i - 1} = \vec x_{i - 1} \big]"
COND_DP = r"\Pr \big[ \mathcal{A}(D') = s_i \Vert \vec X_{i - 1} = \vec x_{i - 1} \big]"
EV_HAT_D = r"\Pr \big[ M(D, \vec x_{i - 1}) < \hat t \le \hat q_i(D) \big]"
EV_NOISE_D = r"\Pr \big[ M(D, \vec x_{i - 1}) < t + Z \le q_i(D) + X_i \big]"
EV_HAT_DP = r"\Pr \big[ M(D', \vec x_{i - 1}) < \hat t \le \hat q_i(D') \big]"
EV_NOISE_DP = r"\Pr \big[ M(D', \vec x_{i - 1}) < t + Z \le q_i(D') + X_i \big]"
INDEPENDENT = r"Since the random variables Z,X⃗i−1,XiZ, \vec X_{i - 1}, X_i are independent"

# --- Proof 1 ---------------------------------------------------------------------------------------------
P1_FUBINI = r"Let μ\mu be a shorthand of Lap(3Δ/ϵ)\mathcal{Lap}(3 \Delta / \epsilon), and FF be its cumulative function. Since the random variables Z,X⃗i−1,XiZ, \vec X_{i - 1}, X_i are independent, via Fubini's theorem,"
P1_E_SURVIVAL = r"\mathbb{E}_{z \sim \mu} \left[ \mathbb{I} \Big[ M(D, \vec x_{i - 1}) < t + z \Big] \cdot \big( 1 - F ( t + z - q_i(D) ) \big) \right]"
P1_E_CDF = r"\mathbb{E}_{z \sim \mu} \left[ \mathbb{I} \Big[ M(D, \vec x_{i - 1}) < t + z \Big] \cdot F \big( - t - z + q_i(D) \big) \right]"
P1_INTEGRAL_D = r"\int_{M(D, \vec x_{i - 1}) - t}^\infty p(z) \cdot F \big( - t - z + q_i(D) \big) \, d z"
P1_SHIFTED = r"\int_{M(D', \vec x_{i - 1}) - t}^\infty p\big( z + \kappa \big) \cdot F \big( - t - z - \kappa + q_i(D) \big) \, d z,"
P1_KAPPA = r"\kappa \doteq M(D, \vec x_{i - 1}) - M(D', \vec x_{i - 1})."
P1_INTEGRAL_DP = r"\int_{M(D', \vec x_{i - 1}) - t}^\infty p(z) \cdot F \big( - t - z + q_i(D') \big) \, d z."
P1_COMPARE = (
    r"Comparing p(z)p(z) and p(z+κ)p(z + \kappa), F(−t−z−κ+qi(D))F \big( - t - z - \kappa + q_i(D) \big) and "
    r"F(−t−z+qi(D′))F \big( - t - z + q_i(D') \big) finishes the proof."
)

# --- Proof 2 ---------------------------------------------------------------------------------------------
P2_DOUBLE_D = r"\int \int p(z) \cdot p(x_i) \cdot \mathbb{I} \Big[ M(D, \vec x_{i - 1}) < t + z \le q_i(D) + x_i \Big] \, d x_i \, dz,"
P2_DOUBLE_DP = r"\int \int p(z') \cdot p(x_i') \cdot \mathbb{I} \Big[ M(D', \vec x_{i - 1}) < t + z' \le q_i(D') + x_i' \Big] \, d x_i' \, dz'."
P2_EQ_Z = r"t + z' - M(D', \vec x_{i - 1}) &= t + z - M(D, \vec x_{i - 1}),"
P2_EQ_X = r"q_i(D') + x_i' - (t + z') &= q_i(D) + x_i - (t + z)."
P2_INDICATORS = (
    r"\mathbb{I} \Big[ M(D', \vec x_{i - 1}) < t + z' \le q_i(D') + x_i' \Big] = "
    r"\mathbb{I} \Big[ M(D, \vec x_{i - 1}) < t + z \le q_i(D) + x_i \Big]."
)
P2_SHIFT_Z = r"|z' - z| &= |M(D', \vec x_{i - 1}) - M(D, \vec x_{i - 1})| \le \Delta"
P2_SHIFT_X1 = r"|x_i' - x_i| &= |z' - q_i(D') - z + q_i(D)|"
P2_SHIFT_X2 = r"&= |M(D', \vec x_{i - 1}) - M(D, \vec x_{i - 1}) + q_i(D) - q_i(D')|"
P2_SHIFT_X3 = r"&\le 2 \cdot \Delta."
P2_JACOBIAN = (
    r"\begin{vmatrix} \begin{aligned} \frac{d x_i'}{d_{x_i}}, &\frac{d x_i'}{d_z} \\ \frac{d z'}{d_{x_i}}, "
    r"&\frac{d z'}{d_z} \end{aligned} \end{vmatrix} = \begin{vmatrix} 1, &0 \\ 0, &1 \end{vmatrix} = 1,"
)
P2_RATIO_LHS = (
    r"\frac{\Pr \big[ \mathcal{A}(D) = s_i \Vert \vec X_{i - 1} = \vec x_{i - 1} \big]}"
    r"{\Pr \big[ \mathcal{A}(D') = s_i \Vert \vec X_{i - 1} = \vec x_{i - 1} \big] }"
)
P2_RATIO_1 = (
    r"\frac{ \int \int p(z) \cdot p(x_i) \cdot \mathbb{I} \Big[ M(D, \vec x_{i - 1}) < t + z \le q_i(D) + x_i \Big] \, d x_i \, dz } "
    r"{ \int \int p(z') \cdot p(x_i') \cdot \mathbb{I} \Big[ M(D', \vec x_{i - 1}) < t + z' \le q_i(D') + x_i' \Big] \, d x_i' \, dz' }"
)
P2_RATIO_2 = (
    r"\frac{ \int \int p(z) \cdot p(x_i) \cdot \mathbb{I} \Big[ M(D, \vec x_{i - 1}) < t + z \le q_i(D) + x_i \Big] \, d x_i \, dz } "
    r"{ \int \int p(z') \cdot p(x_i') \cdot \mathbb{I} \Big[ M(D, \vec x_{i - 1}) < t + z \le q_i(D) + x_i \Big] \, d x_i \, dz }"
)
P2_RATIO_3 = r"\exp \Big( \Delta \cdot \frac{\epsilon}{3\Delta}\Big) \cdot \exp \Big( 2 \cdot \Delta \cdot \frac{\epsilon}{3\Delta} \Big)"
P2_RATIO_4 = r"\exp(\epsilon). \end{aligned}"
INTEGRATING = r"Integrating over X⃗i−1=x⃗i−1\vec X_{i - 1} = \vec x_{i - 1} for all possible x⃗i−1\vec x_{i - 1} proves that"
UPPER = r"\Pr\big[ \mathcal{A}(D) = s_i \big] \le e^\epsilon \cdot \Pr\big[ \mathcal{A}(D') = s_i \big]."

# --- Mechanism Two ---------------------------------------------------------------------------------------
M2_Z = r"Z \sim \mathcal{Exp}(3 \Delta / \epsilon)"
M2_X = r"X_i \sim \mathcal{Exp}( 3 \Delta / \epsilon)"
NOISY_MAX = (
    r"Informally speaking, we are applying report noisy max twice, one for t^\hat t being max among "
    r"(t^,q^(D1),…,q^(Di−1))(\hat t, \hat q(D_1), \ldots, \hat q(D_{i - 1})), one for q^(Di)\hat q(D_i) being max among "
    r"(t^,q^(D1),…,q^(Di))(\hat t, \hat q(D_1), \ldots, \hat q(D_{i}))."
)
M2_M_DEF = r"M(D, \vec x_{i - 1}) = \max_{1 \le j \le i - 1} \Big( q_j(D) + x_j \Big)."
M2_NESTED_D = r"\int_{M(D, \vec x_{i - 1}) - t}^\infty \left( p(z) \cdot \int_{t + z - q_i (D)}^\infty p(x_i) \, d x_i \right) \, dz"
M2_SURV_D = r"\int_{M(D, \vec x_{i - 1}) - t}^\infty p(z) \cdot \exp \left( -\frac{\epsilon}{3 \Delta} \cdot \max \big\{ 0, t + z - q_i (D) \big\} \right) \, dz"
M2_KAPPA = r"\kappa \doteq M(D, \vec x_{i - 1}) - M(D', \vec x_{i - 1}) \in [- \Delta, \Delta] ."
M2_NESTED_DP = r"\int_{M(D', \vec x_{i - 1}) - t}^\infty \left( p(z) \cdot \int_{t + z - q_i (D')}^\infty p(x_i) \, d x_i \right) \, dz"
M2_SURV_DP = r"\int_{M(D', \vec x_{i - 1}) - t}^\infty p(z) \cdot \exp \left( -\frac{\epsilon}{3 \Delta} \cdot \max \big\{ 0, t + z - q_i (D') \big\} \right) \, dz"
M2_SUBST = r"\stackrel{y \doteq z + \kappa}{=}"
M2_SHIFTED = (
    r"\int_{M(D, \vec x_{i - 1}) - t}^\infty p(y - \kappa) \cdot \exp \left( -\frac{\epsilon}{3 \Delta} \cdot "
    r"\max \big\{ 0, t + y - \kappa - q_i (D') \big\} \right) \, dy"
)
M2_COMPARE = r"Comparing the integrands we have"
M2_RATIO = r"&\le \exp(\epsilon). \end{aligned}"

# --- Utility ----------------------------------------------------------------------------------------------
ERROR_DEF = (
    r"we measure the empirical error by max{0,qi(D)−t}\max \{0, q_i(D) - t \}, i.e., if qi(D)q_i(D) does not exceed tt, "
    r"then we regards the empirical error as 00. Similarly, for an output ⊥\bot, the empirical error is measured by "
    r"max{0,t−qi(D)}\max \{0, t - q_i(D) \}."
)
U_THEOREM = r"With probability at most β\beta, the maximum empirical error exceeds"
U_BOUND = r"\frac{6 \cdot \Delta}{\epsilon}\ln \frac{k + 1}{\beta}."
U_TAIL_Z = r"\Pr \left[ |Z| \ge \frac{2 \cdot \Delta}{\epsilon}\ln \frac{k + 1}{\beta} \right]"
U_TAIL_X = r"\Pr \left[ |X_i| \ge \frac{2 \cdot \Delta}{\epsilon}\ln \frac{k + 1}{\beta} \right]"
U_EXP2 = r"\exp \left( 2 \cdot \ln \frac{k + 1}{\beta} \right)"
U_BETA = r"\frac{\beta}{k + 1}."
U_UNION_INTRO = r"By union bound, with probability at most β\beta, it holds that"
U_UNION = r"|Z| + \max_{i \in [k]} |X_i| \ge \frac{6 \cdot \Delta}{\epsilon}\ln \frac{k + 1}{\beta}."


def all_fragments() -> dict[str, str]:
    """Every fragment constant of this module, by name."""
    return {k: v for k, v in globals().items() if k.isupper() and isinstance(v, str)}
