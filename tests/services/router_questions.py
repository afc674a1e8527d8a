"""A labelled set of questions for the cascade's router: (text, the tier it should get).

Labelled by what a 135M-parameter model can answer well (fast) and what needs a 7B one
(strong); greetings to proofs and code, English and Chinese.
"""

from __future__ import annotations

FAST = "fast"
STRONG = "strong"

QUESTIONS: list[tuple[str, str]] = [
    # greetings and chit-chat
    ("hi", FAST),
    ("Hello!", FAST),
    ("Good morning", FAST),
    ("thanks a lot", FAST),
    ("How are you today?", FAST),
    ("What's up?", FAST),
    ("Tell me a joke", FAST),
    ("bye", FAST),
    ("Nice to meet you", FAST),
    ("Can you help me?", FAST),
    ("你好", FAST),
    ("早上好", FAST),
    ("谢谢", FAST),
    ("你是谁？", FAST),
    ("讲个笑话吧", FAST),
    ("再见", FAST),
    ("今天心情不错", FAST),
    ("晚安", FAST),
    # short facts
    ("What is the capital of France?", FAST),
    ("Who wrote Hamlet?", FAST),
    ("What colour is the sky?", FAST),
    ("How many days are in a week?", FAST),
    ("What is a cat?", FAST),
    ("Name a fruit that is yellow", FAST),
    ("When is Christmas?", FAST),
    ("What does CPU stand for?", FAST),
    ("Give me a synonym for happy", FAST),
    ("What is the opposite of hot?", FAST),
    ("Suggest a name for my dog", FAST),
    ("What time zone is London in?", FAST),
    ("中国的首都是哪里？", FAST),
    ("一年有几个月？", FAST),
    ("熊猫吃什么？", FAST),
    ("推荐一本小说", FAST),
    ("今天是星期几？", FAST),
    ("苹果是什么颜色的？", FAST),
    ("给我的猫起个名字", FAST),
    ("长城在哪个国家？", FAST),
    ("Write a haiku about rain", FAST),
    ("Is water wet?", FAST),
    # proofs, derivations, explanations, comparisons
    ("Prove that √2 is irrational, step by step", STRONG),
    ("Prove that there are infinitely many primes", STRONG),
    ("Derive the quadratic formula", STRONG),
    ("Explain why the sky is blue in terms of Rayleigh scattering", STRONG),
    ("Compare TCP and UDP", STRONG),
    ("What is the difference between a process and a thread?", STRONG),
    ("Walk me through it step by step: how does public key encryption work", STRONG),
    ("Analyze the causes of the French Revolution", STRONG),
    ("What are the pros and cons of nuclear power", STRONG),
    ("Explain how a transformer model attends to tokens", STRONG),
    ("证明根号2是无理数", STRONG),
    ("推导一下欧拉公式", STRONG),
    ("解释为什么天空是蓝色的", STRONG),
    ("比较一下Python和Java", STRONG),
    ("请一步一步地解释快速排序", STRONG),
    ("分析一下这次经济危机的原因", STRONG),
    ("进程和线程有什么区别", STRONG),
    ("为什么冰会浮在水上", STRONG),
    # maths
    ("Solve x^2 - 5x + 6 = 0", STRONG),
    ("What is the integral of x sin x?", STRONG),
    ("Compute 37 * 43", STRONG),
    ("Find the eigenvalues of [[2, 1], [1, 2]]", STRONG),
    ("What is the probability of two sixes with two dice", STRONG),
    ("求解方程 3x + 5 = 20", STRONG),
    ("计算这个积分：∫ x² dx", STRONG),
    ("求函数 f(x)=x^3 的导数", STRONG),
    # code
    ("Write a Python function that reverses a linked list", STRONG),
    ("Why does my code throw a NullPointerException?", STRONG),
    ("def f(x):\n    return x +\n\nwhat's wrong here", STRONG),
    ("Write a SQL query for the top 5 customers by revenue", STRONG),
    ("Give me a regex for email addresses", STRONG),
    ("Refactor this JavaScript to use async/await", STRONG),
    ("How do I fix this bug: ```for i in range(10) print(i)```", STRONG),
    ("用Python写一个快速排序", STRONG),
    ("这段代码为什么报错", STRONG),
    ("帮我写一个读取文件的函数", STRONG),
    # translation
    ("Translate 'good night' into French", STRONG),
    ("How do you say 'thank you' in Japanese", STRONG),
    ("把这句话翻译成英文：我喜欢学习", STRONG),
    ("请用英文写一封感谢信", STRONG),
    # several questions in one
    ("Who was Napoleon? When did he die? Where is he buried?", STRONG),
    ("What is Rust? Is it faster than Go?", STRONG),
    ("北京有多少人？上海呢？", STRONG),
    # long messages
    (
        "I am planning a two-week trip through Japan in April with my partner and our "
        "two kids aged six and nine, we like food, history and nature but not crowds, "
        "we have a budget of about five thousand euros without flights, and we want to "
        "spend at least three nights somewhere rural; can you suggest an itinerary with "
        "how many nights in each place and how to move between them",
        STRONG,
    ),
    (
        "我们公司正在考虑把现有的单体应用迁移到微服务架构，团队大约有二十个工程师，"
        "系统每天处理大约一百万个请求，数据库是一个很大的关系型数据库，我们担心数据一致性、"
        "部署的复杂度以及团队的学习成本，同时管理层希望在六个月内完成迁移并且不影响现有"
        "客户的使用体验，请给出一个可行的迁移计划，包括阶段划分、风险以及每个阶段需要的人力和"
        "时间估计，还有我们应该先拆分哪些模块",
        STRONG,
    ),
    # honest borderline ones (a rule may miss them)
    ("Why is the sky blue?", FAST),
    ("What is love?", FAST),
    ("Summarise the plot of War and Peace", STRONG),
    ("Is it a good idea to quit my job to start a company", STRONG),
    ("写一首关于秋天的诗", FAST),
]
