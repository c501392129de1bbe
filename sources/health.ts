/**
 * Body measures from height, weight, age and gender, with the formulas and their sources:
 *
 * - BMI = weight / height² (kg/m²). Chinese adult cut-offs (WS/T 428-2013, 《成人体重判定》):
 *   < 18.5 underweight (偏瘦), 18.5–23.9 normal (正常), 24.0–27.9 overweight (超重), ≥ 28 obese (肥胖).
 * - Ideal weight range: the weights that give a normal BMI, 18.5 × h² to 23.9 × h².
 *   "Standard weight" (标准体重): the common Chinese rule height(cm) − 105 (Broca's index as used in China).
 * - Body fat % (Deurenberg, Weststrate & Seidell 1991, Br J Nutr 65:105–114):
 *   adults (age ≥ 16): 1.2 × BMI + 0.23 × age − 10.8 × sex − 5.4;
 *   children (age < 16): 1.51 × BMI − 0.70 × age − 3.6 × sex + 1.4; sex = 1 male, 0 female.
 *   Categories after the American Council on Exercise table (men / women):
 *   essential < 6 / < 14, athletes < 14 / < 21, fitness < 18 / < 25, average < 25 / < 32, obese above.
 * - BMR (Mifflin–St Jeor 1990, Am J Clin Nutr 51:241–247): 10 W + 6.25 H − 5 A + 5 (men), − 161 (women), kcal/day.
 * - TDEE = BMR × activity factor (1.2 sedentary, 1.375 light, 1.55 moderate, 1.725 active, 1.9 very active;
 *   the usual multipliers after McArdle, Katch & Katch).
 * - Body surface area (Du Bois & Du Bois 1916): 0.007184 × W^0.425 × H^0.725 m².
 * - Waist: central obesity from 90 cm (men) / 85 cm (women) (WS/T 428-2013); waist-to-height ratio
 *   below 0.5 (Ashwell & Hsieh 2005); waist-to-hip ratio limits 0.90 / 0.85 (WHO 2008 expert consultation).
 * - Water: 30–35 ml per kg of body weight a day (a common clinical rule of thumb).
 *
 * These are population formulas for information, not a diagnosis.
 */
import { defineSource } from '../src/kernel/source.ts';

export type Gender = 'male' | 'female';
export type Activity = 'sedentary' | 'light' | 'moderate' | 'active' | 'very_active';

export const ACTIVITY_FACTORS: Readonly<Record<Activity, number>> = { sedentary: 1.2, light: 1.375, moderate: 1.55, active: 1.725, very_active: 1.9 };

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

export function bmi(heightCm: number, weightKg: number): number {
  // kg·10⁴ / cm² keeps exact decimals exact (80 kg at 160 cm is 31.25, not 31.2499…).
  return (weightKg * 10_000) / (heightCm * heightCm);
}

export function bmiCategory(value: number): { category: string; category_en: string; risk: string } {
  // Compared on the one-decimal value, as the standard's bands are written (23.9, 27.9).
  const v = round(value, 1);
  if (v < 18.5) return { category: '偏瘦', category_en: 'underweight', risk: '营养不良、免疫力下降的风险增加' };
  if (v < 24) return { category: '正常', category_en: 'normal', risk: '处于健康范围' };
  if (v < 28) return { category: '超重', category_en: 'overweight', risk: '高血压、糖尿病等慢性病风险增加' };
  return { category: '肥胖', category_en: 'obese', risk: '心血管疾病、2 型糖尿病等风险明显增加' };
}

export function bodyFatPercent(bmiValue: number, age: number, gender: Gender): number {
  const sex = gender === 'male' ? 1 : 0;
  return age >= 16 ? 1.2 * bmiValue + 0.23 * age - 10.8 * sex - 5.4 : 1.51 * bmiValue - 0.7 * age - 3.6 * sex + 1.4;
}

export function bodyFatCategory(pct: number, gender: Gender): string {
  const limits = gender === 'male' ? [6, 14, 18, 25] : [14, 21, 25, 32];
  const names = ['必需脂肪', '运动员', '健美', '一般', '肥胖'];
  const i = limits.findIndex((l) => pct < l);
  return names[i === -1 ? 4 : i] as string;
}

export function bmrMifflin(heightCm: number, weightKg: number, age: number, gender: Gender): number {
  return 10 * weightKg + 6.25 * heightCm - 5 * age + (gender === 'male' ? 5 : -161);
}

export function bsaDuBois(heightCm: number, weightKg: number): number {
  return 0.007184 * weightKg ** 0.425 * heightCm ** 0.725;
}

/**
 * 60s's report groups each value as display text (`height: "175cm"`) with a label in `<name>_desc`;
 * our numbers sit beside them with their unit in the name (`height_cm: 175`).
 */
export interface HealthReport {
  basic_info: {
    height: string;
    height_desc: string;
    weight: string;
    weight_desc: string;
    /** 男性 or 女性. */
    gender: string;
    gender_desc: string;
    age: string;
    age_desc: string;
    height_cm: number;
    weight_kg: number;
    age_years: number;
    gender_code: Gender;
  };
  bmi: {
    value: number;
    value_desc: string;
    category: string;
    category_desc: string;
    evaluation: string;
    evaluation_desc: string;
    category_en: string;
    risk: string;
    risk_desc: string;
    normal_range: string;
    standard: string;
  };
  weight_assessment: {
    ideal_weight_range: string;
    ideal_weight_range_desc: string;
    standard_weight: string;
    standard_weight_desc: string;
    status_desc: string;
    /** Advice in words, e.g. 建议减重 3.5kg. */
    adjustment: string;
    adjustment_desc: string;
    ideal_weight_min_kg: number;
    ideal_weight_max_kg: number;
    standard_weight_kg: number;
    /** Positive: kg to lose to reach the ideal range; negative: kg to gain; 0 inside the range. */
    adjustment_kg: number;
    status: string;
  };
  body_fat: {
    /** e.g. `18.1%`; the number is `percentage_value`. */
    percentage: string;
    percentage_desc: string;
    percentage_value: number;
    category: string;
    category_desc: string;
    fat_weight: string;
    fat_weight_desc: string;
    lean_weight: string;
    lean_weight_desc: string;
    fat_mass_kg: number;
    lean_mass_kg: number;
    formula: string;
  };
  metabolism: {
    bmr: string;
    bmr_desc: string;
    tdee: string;
    tdee_desc: string;
    recommended_calories: string;
    recommended_calories_desc: string;
    weight_loss_calories: string;
    weight_loss_calories_desc: string;
    weight_gain_calories: string;
    weight_gain_calories_desc: string;
    bmr_kcal: number;
    formula: string;
    activity: Activity;
    activity_factor: number;
    tdee_kcal: number;
    tdee_by_activity_kcal: Record<Activity, number>;
    weight_loss_kcal: number;
    weight_gain_kcal: number;
  };
  body_surface_area: { value: string; value_desc: string; formula: string; formula_desc: string; value_m2: number };
  measurements: {
    waist_max_by_height_cm: number;
    central_obesity_waist_cm: number;
    waist_hip_ratio_max: number;
    note: string;
  };
  daily_water_ml: { min: number; max: number };
  health_advice: {
    daily_water_intake: string;
    daily_water_intake_desc: string;
    exercise_recommendation: string;
    exercise_recommendation_desc: string;
    nutrition_advice: string;
    nutrition_advice_desc: string;
    health_tips: string[];
    health_tips_desc: string;
  };
  /**
   * 60s's 三围: only the waist has a health standard (below half the height and the central-obesity
   * limit); no standard exists for chest and hip, so they stay empty and `note` says why.
   */
  ideal_measurements: { chest: string; chest_desc: string; waist: string; waist_desc: string; hip: string; hip_desc: string; note: string; note_desc: string };
  advice: string[];
  disclaimer: string;
}

/** What a BMI category means for the person, in a sentence. */
const EVALUATION: Record<string, string> = {
  underweight: '体重偏低，宜适当增重',
  normal: '体重在健康范围内，继续保持',
  overweight: '体重超出健康范围，宜适度减重',
  obese: '已达肥胖，宜积极减重并关注血压血糖',
};

export function healthReport(heightCm: number, weightKg: number, age: number, gender: Gender, activity: Activity = 'moderate'): HealthReport {
  const b = bmi(heightCm, weightKg);
  const cat = bmiCategory(b);
  const h2 = (heightCm * heightCm) / 10_000;
  const idealMin = round(18.5 * h2);
  const idealMax = round(23.9 * h2);
  const adjustment = weightKg > idealMax ? round(weightKg - idealMax) : weightKg < idealMin ? round(weightKg - idealMin) : 0;
  const fat = bodyFatPercent(b, age, gender);
  const fatPct = round(Math.max(fat, 2));
  const bmr = bmrMifflin(heightCm, weightKg, age, gender);
  const tdeeBy = Object.fromEntries(Object.entries(ACTIVITY_FACTORS).map(([k, f]) => [k, Math.round(bmr * f)])) as Record<Activity, number>;
  const tdee = tdeeBy[activity];
  const male = gender === 'male';

  const advice: string[] = [];
  const nutrition =
    cat.category_en === 'underweight'
      ? '适当增加能量和优质蛋白（蛋、奶、瘦肉、豆制品）的摄入，配合力量训练增加肌肉。'
      : cat.category_en === 'normal'
        ? '体重在健康范围内，保持均衡饮食和规律运动。'
        : `每天比消耗少摄入约 300–500 千卡，以每周减重 0.5–1 kg 为宜，目标体重不高于 ${idealMax} kg。`;
  advice.push(nutrition);
  if (cat.category_en === 'obese') advice.push('建议咨询医生或营养师，检查血压、血糖和血脂。');
  const exercise = '每周至少 150 分钟中等强度有氧运动（如快走、骑车），另做 2 次力量训练。';
  advice.push(exercise);
  const water = `每天饮水约 ${Math.round(weightKg * 30)}–${Math.round(weightKg * 35)} 毫升，运动或炎热时适当增加。`;
  advice.push(water);
  if (age >= 60) advice.push('年长者运动前先热身，可加入平衡练习，预防跌倒。');
  if (age < 18) advice.push('未成年人的 BMI 应按年龄别标准评价，以上成人判定仅供参考。');
  advice.push('保证 7–9 小时睡眠，减少久坐，每坐一小时起身活动几分钟。');

  const fatMass = round((weightKg * fatPct) / 100);
  const leanMass = round(weightKg - (weightKg * fatPct) / 100);
  const bsa = round(bsaDuBois(heightCm, weightKg), 2);
  const waistMax = Math.min(round(heightCm * 0.5), male ? 90 : 85);
  const kcal = (n: number) => `${n} 千卡/天`;
  return {
    basic_info: {
      height: `${heightCm}cm`,
      height_desc: '身高',
      weight: `${weightKg}kg`,
      weight_desc: '体重',
      gender: male ? '男性' : '女性',
      gender_desc: '性别',
      age: `${age}岁`,
      age_desc: '年龄',
      height_cm: heightCm,
      weight_kg: weightKg,
      age_years: age,
      gender_code: gender,
    },
    bmi: {
      value: round(b),
      value_desc: 'BMI 值',
      category: cat.category,
      category_desc: 'BMI 分类',
      evaluation: EVALUATION[cat.category_en] ?? '',
      evaluation_desc: 'BMI 评价',
      category_en: cat.category_en,
      risk: cat.risk,
      risk_desc: '健康风险',
      normal_range: '18.5–23.9',
      standard: 'WS/T 428-2013 (China)',
    },
    weight_assessment: {
      ideal_weight_range: `${idealMin}-${idealMax}kg`,
      ideal_weight_range_desc: '理想体重范围',
      standard_weight: `${heightCm - 105}kg`,
      standard_weight_desc: '标准体重',
      status_desc: '体重状态',
      adjustment: adjustment > 0 ? `建议减重 ${adjustment}kg` : adjustment < 0 ? `建议增重 ${-adjustment}kg` : '保持当前体重',
      adjustment_desc: '调整建议',
      ideal_weight_min_kg: idealMin,
      ideal_weight_max_kg: idealMax,
      standard_weight_kg: heightCm - 105,
      adjustment_kg: adjustment,
      status: adjustment > 0 ? `高于理想体重范围 ${adjustment} kg` : adjustment < 0 ? `低于理想体重范围 ${-adjustment} kg` : '在理想体重范围内',
    },
    body_fat: {
      percentage: `${fatPct}%`,
      percentage_desc: '体脂率',
      percentage_value: fatPct,
      category: bodyFatCategory(fatPct, gender),
      category_desc: '体脂分类',
      fat_weight: `${fatMass}kg`,
      fat_weight_desc: '脂肪重量',
      lean_weight: `${leanMass}kg`,
      lean_weight_desc: '瘦体重',
      fat_mass_kg: fatMass,
      lean_mass_kg: leanMass,
      formula: age >= 16 ? 'Deurenberg 1991 (adults)' : 'Deurenberg 1991 (children)',
    },
    metabolism: {
      bmr: kcal(Math.round(bmr)),
      bmr_desc: '基础代谢率',
      tdee: kcal(tdee),
      tdee_desc: '每日总消耗',
      recommended_calories: kcal(tdee),
      recommended_calories_desc: '推荐摄入热量',
      weight_loss_calories: kcal(Math.max(Math.round(bmr), tdee - 500)),
      weight_loss_calories_desc: '减重摄入热量',
      weight_gain_calories: kcal(tdee + 300),
      weight_gain_calories_desc: '增重摄入热量',
      bmr_kcal: Math.round(bmr),
      formula: 'Mifflin–St Jeor',
      activity,
      activity_factor: ACTIVITY_FACTORS[activity],
      tdee_kcal: tdee,
      tdee_by_activity_kcal: tdeeBy,
      weight_loss_kcal: Math.max(Math.round(bmr), tdee - 500),
      weight_gain_kcal: tdee + 300,
    },
    body_surface_area: { value: `${bsa}m²`, value_desc: '体表面积', formula: 'Du Bois', formula_desc: '计算公式', value_m2: bsa },
    measurements: {
      waist_max_by_height_cm: round(heightCm * 0.5),
      central_obesity_waist_cm: male ? 90 : 85,
      waist_hip_ratio_max: male ? 0.9 : 0.85,
      note: '腰围宜小于身高的一半，且低于中心性肥胖界值；腰臀比超过界值提示腹部脂肪偏多。',
    },
    daily_water_ml: { min: Math.round(weightKg * 30), max: Math.round(weightKg * 35) },
    health_advice: {
      daily_water_intake: `${Math.round(weightKg * 30)}-${Math.round(weightKg * 35)}ml`,
      daily_water_intake_desc: '每日饮水量',
      exercise_recommendation: exercise,
      exercise_recommendation_desc: '运动建议',
      nutrition_advice: nutrition,
      nutrition_advice_desc: '营养建议',
      health_tips: advice.filter((a) => a !== nutrition && a !== exercise && a !== water),
      health_tips_desc: '健康提示',
    },
    ideal_measurements: {
      chest: '',
      chest_desc: '胸围',
      waist: `<${waistMax}cm`,
      waist_desc: '腰围',
      hip: '',
      hip_desc: '臀围',
      note: '腰围宜小于身高的一半且低于中心性肥胖界值；胸围和臀围没有健康标准，不作推荐。',
      note_desc: '说明',
    },
    advice,
    disclaimer: '以上结果由通用公式估算，仅供参考，不能替代医生的诊断。',
  };
}

export default defineSource({
  id: 'health',
  name: '健康分析',
  description: 'Body measures from height, weight, age and gender: BMI with Chinese cut-offs, ideal weight range, body fat (Deurenberg), BMR (Mifflin–St Jeor) and TDEE, body surface area (Du Bois), waist guidance and advice.',
  routes: [{ path: '/health' }],
  params: {
    height: { type: 'number', required: true, min: 50, max: 250, doc: 'Height in centimetres (decimals allowed).', example: '175' },
    weight: { type: 'number', required: true, min: 10, max: 300, doc: 'Weight in kilograms (decimals allowed).', example: '70' },
    age: { type: 'integer', required: true, min: 2, max: 120, doc: 'Age in years.', example: '30' },
    gender: { type: 'string', required: true, enum: ['male', 'female'], doc: 'male or female (the formulas differ).', example: 'male' },
    activity: {
      type: 'string',
      enum: Object.keys(ACTIVITY_FACTORS),
      default: 'moderate',
      doc: 'Activity level for TDEE: sedentary (×1.2), light (×1.375), moderate (×1.55), active (×1.725), very_active (×1.9).',
    },
  },
  mode: 'local',
  compute: (_ctx, p) => healthReport(p.height, p.weight, p.age, p.gender as Gender, p.activity as Activity),
  view: {
    title: () => '健康分析',
    text: (d) =>
      [
        `健康分析（${d.basic_info.gender}，${d.basic_info.age_years} 岁，${d.basic_info.height_cm} cm，${d.basic_info.weight_kg} kg）`,
        '',
        `BMI：${d.bmi.value}（${d.bmi.category}，正常 ${d.bmi.normal_range}）`,
        `理想体重：${d.weight_assessment.ideal_weight_min_kg}–${d.weight_assessment.ideal_weight_max_kg} kg，${d.weight_assessment.status}`,
        `体脂率（估算）：${d.body_fat.percentage}（${d.body_fat.category}）`,
        `基础代谢：${d.metabolism.bmr_kcal} 千卡/天，每日消耗约 ${d.metabolism.tdee_kcal} 千卡（${d.metabolism.activity}）`,
        `体表面积：${d.body_surface_area.value_m2} m²`,
        `腰围建议：小于 ${Math.min(d.measurements.waist_max_by_height_cm, d.measurements.central_obesity_waist_cm)} cm`,
        `每日饮水：${d.daily_water_ml.min}–${d.daily_water_ml.max} ml`,
        '',
        '建议：',
        ...d.advice.map((a) => `- ${a}`),
        '',
        d.disclaimer,
        '',
      ].join('\n'),
    markdown: (d) =>
      [
        '# 健康分析',
        '',
        `${d.basic_info.gender} · ${d.basic_info.age_years} 岁 · ${d.basic_info.height_cm} cm · ${d.basic_info.weight_kg} kg`,
        '',
        '| 指标 | 结果 |',
        '| --- | --- |',
        `| BMI | ${d.bmi.value}（${d.bmi.category}） |`,
        `| 理想体重 | ${d.weight_assessment.ideal_weight_min_kg}–${d.weight_assessment.ideal_weight_max_kg} kg |`,
        `| 体重状态 | ${d.weight_assessment.status} |`,
        `| 体脂率 | ${d.body_fat.percentage}（${d.body_fat.category}） |`,
        `| 基础代谢 | ${d.metabolism.bmr_kcal} kcal/天 |`,
        `| 每日总消耗 | ${d.metabolism.tdee_kcal} kcal/天 |`,
        `| 体表面积 | ${d.body_surface_area.value_m2} m² |`,
        `| 每日饮水 | ${d.daily_water_ml.min}–${d.daily_water_ml.max} ml |`,
        '',
        '## 建议',
        '',
        ...d.advice.map((a) => `- ${a}`),
        '',
        `_${d.disclaimer}_`,
        '',
      ].join('\n'),
  },
  example: '/v2/apis/health?height=175&weight=70&age=30&gender=male',
});
